#!/usr/bin/env python3
"""Prints facts about a PNG screenshot, using only the standard library (zlib):
   size WxH, the number of distinct colours, the fraction of non-white pixels, and how many
   pixels have each colour given as #rrggbb on the command line.

usage: png_stats.py FILE.png [#rrggbb ...]
"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise SystemExit(path + ': not a PNG file')
    pos, idat, header = 8, b'', None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b'IHDR':
            header = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        elif kind == b'IEND':
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise SystemExit('unsupported PNG: depth %d, colour type %d, interlace %d'
                         % (depth, colour, interlace))
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    width, height, bpp, rows = read_png(sys.argv[1])
    wanted = {bytes.fromhex(c.lstrip('#')): 0 for c in sys.argv[2:]}
    colours, non_white = set(), 0
    for line in rows:
        for x in range(0, len(line), bpp):
            rgb = line[x:x + 3]
            colours.add(rgb)
            if rgb != b'\xff\xff\xff':
                non_white += 1
            if rgb in wanted:
                wanted[rgb] += 1
    print('size %dx%d' % (width, height))
    print('colours %d' % len(colours))
    print('non-white %.4f' % (non_white / float(width * height)))
    for rgb, n in wanted.items():
        print('#%s %d' % (rgb.hex(), n))


if __name__ == '__main__':
    main()
