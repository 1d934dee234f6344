#!/usr/bin/env python3
"""Lazy twins, prototyped on rewritten jars: what they would save whole runs, measured.

    bench/lazy_prototype.py PROGRAM [--reps N] [--size small|large]

A measurement of docs/design/lazy-twins.md (section 6) before it is built into the rewriter:
the jars rewritten in checks-only and Full (both instrumentations) are post-processed so that
every movable twin (no `invokespecial` other than a constructor call, no member reference that
may be protected) leaves its class, in one of two forms:
- `nest`: into an ordinary class file HOST$DuplexTwins (twin_link.twin_class_of: the host's
  pool copied whole) with a NestHost attribute; the host, raised to version 55, lists it in
  NestMembers, and its method references to the moved twins name the twin class, so that the
  JVM loads it when a sample stub first runs (nest_class);
- `indy`: into a hidden class (resource HOST.duplextwins), reached through a forwarder of the
  same name and descriptor (load the parameters, `invokedynamic`, return) whose bootstrap
  (bench/runtime/hiddentwin/duplex/lazy/Twins.java) defines it as a hidden nestmate at its
  first call (lazy_class; hosts of version 51 or later).
Then whole runs side by side, interleaved: the uninstrumented program, checks-only @0 and Full
@1000, eager and each form. Outputs are checked against the original's. What it does not do:
the runtime's caller search does not know twin classes, so call edges sampled in a moved twin
are misattributed (the profile differs; the cost does not, since the search runs only at
samples).
"""
import argparse
import statistics
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
import twin_link  # noqa: E402
import twin_share  # noqa: E402
import whole_ab  # noqa: E402

BSM_DESCRIPTOR = ("(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;"
                  "Ljava/lang/invoke/MethodType;)Ljava/lang/invoke/CallSite;")
LOAD = {"I": 0x15, "Z": 0x15, "B": 0x15, "C": 0x15, "S": 0x15, "J": 0x16, "F": 0x17, "D": 0x18,
        "L": 0x19, "[": 0x19}
RETURN = {"V": 0xb1, "I": 0xac, "Z": 0xac, "B": 0xac, "C": 0xac, "S": 0xac, "J": 0xad, "F": 0xae,
          "D": 0xaf, "L": 0xb0, "[": 0xb0}


def parameters(descriptor: str):
    """The parameter kinds (first character of each type) and the return kind."""
    kinds, i = [], 1
    while descriptor[i] != ")":
        start = i
        while descriptor[i] == "[":
            i += 1
        if descriptor[i] == "L":
            i = descriptor.index(";", i)
        kinds.append(descriptor[start])
        i += 1
    return kinds, descriptor[i + 1]


def forwarder(method_info: bytes, descriptor: str, code_name: int, indy: int) -> bytes:
    """A method_info of the same flags, name and descriptor that calls `indy` with its
    parameters and returns its result."""
    kinds, ret = parameters(descriptor)
    code, slot = bytearray(), 0
    for k in kinds:
        code += bytes([LOAD[k], slot])  # at most 255 slots (outline_layout.h)
        slot += 2 if k in "JD" else 1
    code += bytes([0xba]) + struct.pack(">HH", indy, 0) + bytes([RETURN[ret]])
    ret_slots = 0 if ret == "V" else 2 if ret in "JD" else 1
    body = struct.pack(">HHI", max(slot, ret_slots), slot, len(code)) + bytes(code) + \
        struct.pack(">HH", 0, 0)
    return method_info[:6] + struct.pack(">HHI", 1, code_name, len(body)) + body


def declared_names(data, pool_end):
    """The names (Utf8 indexes) of the fields and methods the class declares."""
    pos = pool_end + 6
    pos += 2 + 2 * struct.unpack_from(">H", data, pos)[0]  # interfaces
    names = set()
    for _ in ("fields", "methods"):
        for _ in range(struct.unpack_from(">H", data, pos)[0]):
            names.add(struct.unpack_from(">H", data, pos + 4)[0])
            attrs = struct.unpack_from(">H", data, pos + 8)[0]
            pos += 10
            for _ in range(attrs):
                pos += 6 + struct.unpack_from(">I", data, pos + 2)[0]
            pos -= 2
        pos += 2
    return names


def possibly_protected(data, entries, start, end, code_name, pool_end):
    """Whether the method's code names a member that a twin class may not reach: one the host
    inherits (owner the host, not declared there) or one of its superclass's (a protected
    member of a superclass in another package: lazy-twins.md, section 4), or a method called
    clone or finalize (Object's protected methods, which the verifier refuses on the host)."""
    this_class, super_class = struct.unpack_from(">HH", data, pool_end + 2)
    declared = {benchlib.pool_utf8(data, entries, i) for i in declared_names(data, pool_end)}
    for op, at in twin_link.instructions(data, start, end, code_name):
        if not 0xb2 <= op <= 0xb9:
            continue
        ref = struct.unpack_from(">H", data, at)[0]
        owner = struct.unpack_from(">H", data, entries[ref][1])[0]
        name = twin_link.member_name(data, entries, ref)
        if name in (b"clone", b"finalize") or owner == super_class or (
                owner == this_class and name not in declared):
            return True
    return False


def lazy_class(data: bytes, host: str):
    """(the host with forwarders, its twin class) or (data, None) when nothing moves."""
    if struct.unpack_from(">H", data, 6)[0] < 51:
        return data, None
    entries, pool_end = benchlib.class_pool(data)
    code_name = benchlib.pool_utf8_index(data, entries, b"Code")
    count_at, methods = benchlib.class_methods(data)
    movable = movable_twins(data, entries, pool_end, methods, code_name)
    if not movable:
        return data, None
    twins = twin_link.twin_class_of(data, host, movable)
    count = struct.unpack_from(">H", data, 8)[0]
    added = bytearray()

    def add(entry: bytes) -> int:
        nonlocal count
        added.extend(entry)
        count += 1
        return count - 1

    def utf8(text):
        raw = text.encode()
        return add(b"\x01" + struct.pack(">H", len(raw)) + raw)

    klass = add(b"\x07" + struct.pack(">H", utf8("duplex/lazy/Twins")))
    nat = add(b"\x0c" + struct.pack(">HH", utf8("twin"), utf8(BSM_DESCRIPTOR)))
    handle = add(b"\x0f\x06" + struct.pack(">H", add(b"\x0a" + struct.pack(">HH", klass, nat))))
    # The class attributes, after the methods; BootstrapMethods extended or added.
    pos = methods[-1][2]
    attrs, bootstrap, n_attrs = [], None, struct.unpack_from(">H", data, pos)[0]
    pos += 2
    for _ in range(n_attrs):
        name, length = struct.unpack_from(">HI", data, pos)
        raw = data[pos:pos + 6 + length]
        if benchlib.pool_utf8(data, entries, name) == b"BootstrapMethods":
            bootstrap = raw
        else:
            attrs.append(raw)
        pos += 6 + length
    bsm_index = struct.unpack_from(">H", bootstrap, 6)[0] if bootstrap else 0
    new_methods = []
    for m in methods:
        info = data[m[1]:m[2]]
        if m in movable:
            name_i, desc_i = struct.unpack_from(">HH", info, 2)
            indy = add(b"\x12" + struct.pack(">HH", bsm_index,
                                             add(b"\x0c" + struct.pack(">HH", name_i, desc_i))))
            info = forwarder(info, benchlib.pool_utf8(data, entries, desc_i).decode(), code_name, indy)
        new_methods.append(info)
    entry = struct.pack(">HH", handle, 0)
    if bootstrap:
        name, length = struct.unpack_from(">HI", bootstrap, 0)
        bootstrap = struct.pack(">HIH", name, length + 4, bsm_index + 1) + bootstrap[8:] + entry
    else:
        bootstrap = struct.pack(">HIH", utf8("BootstrapMethods"), 2 + len(entry), 1) + entry
    attrs.append(bootstrap)
    host_bytes = (data[:8] + struct.pack(">H", count) + data[10:pool_end] + bytes(added) +
                  data[pool_end:count_at] + struct.pack(">H", len(new_methods)) +
                  b"".join(new_methods) + struct.pack(">H", len(attrs)) + b"".join(attrs))
    return host_bytes, twins


def movable_twins(data, entries, pool_end, methods, code_name):
    """The twins (class_methods entries) that can leave their host: no invokespecial other than
    a constructor call, no member reference that may be protected."""
    return [m for m in methods if m[0].endswith(b"$duplex") and not twin_link.special_calls(
        data, entries, m[1], m[2], code_name) and not possibly_protected(
        data, entries, m[1], m[2], code_name, pool_end)]


def nest_class(data: bytes, host: str):
    """(the host without its movable twins, their twin class) or (data, None): the static-nest
    form. The twin class is an ordinary class file HOST$DuplexTwins with a NestHost attribute;
    the host, raised to version 55 (nests), lists it in NestMembers and its method references to
    the moved twins now name the twin class, so the sample stubs' `invokestatic` loads it at
    their first execution. No code of the host changes. Hosts already in another class's nest,
    and hosts before version 50 (no frames), keep their twins."""
    version = struct.unpack_from(">H", data, 6)[0]
    if version < 50:
        return data, None
    entries, pool_end = benchlib.class_pool(data)
    count_at, methods = benchlib.class_methods(data)
    movable = movable_twins(data, entries, pool_end, methods,
                            benchlib.pool_utf8_index(data, entries, b"Code"))
    if not movable:
        return data, None
    pos = methods[-1][2]
    attrs, members = [], None
    for _ in range(struct.unpack_from(">H", data, pos)[0]):
        name, length = struct.unpack_from(">HI", data, pos + 2)
        raw = data[pos + 2:pos + 8 + length]
        kind = benchlib.pool_utf8(data, entries, name)
        if kind == b"NestHost":
            return data, None
        if kind == b"NestMembers":
            members = raw
        else:
            attrs.append(raw)
        pos += 6 + length
    twins = twin_link.twin_class_of(data, host, movable, nest_host=True)
    count = struct.unpack_from(">H", data, 8)[0]
    name_raw = (host + "$DuplexTwins").encode()
    added = b"\x01" + struct.pack(">H", len(name_raw)) + name_raw + \
        b"\x07" + struct.pack(">H", count) + b"\x01\x00\x0bNestMembers"
    twin_class, members_name = count + 1, count + 2
    pool = bytearray(data[10:pool_end])
    this_class = struct.unpack_from(">H", data, pool_end + 2)[0]
    moved = {struct.unpack_from(">HH", data, m[1] + 2) for m in movable}  # (name, descriptor)
    for index, (tag, at) in entries.items():
        if tag != 10 or struct.unpack_from(">H", data, at)[0] != this_class:
            continue
        nat_at = entries[struct.unpack_from(">H", data, at + 2)[0]][1]
        if struct.unpack_from(">HH", data, nat_at) in moved:
            struct.pack_into(">H", pool, at - 10, twin_class)
    if members:
        n = struct.unpack_from(">H", members, 6)[0]
        members = struct.pack(">HIH", struct.unpack_from(">H", members, 0)[0], 2 * n + 4, n + 1) \
            + members[8:] + struct.pack(">H", twin_class)
    else:
        members = struct.pack(">HIHH", members_name, 4, 1, twin_class)
    attrs.append(members)
    kept = [data[m[1]:m[2]] for m in methods if m not in movable]
    host_bytes = (data[:6] + struct.pack(">HH", max(version, 55), count + 3) + bytes(pool) +
                  added + data[pool_end:count_at] + struct.pack(">H", len(kept)) +
                  b"".join(kept) + struct.pack(">H", len(attrs)) + b"".join(attrs))
    return host_bytes, twins


def lazy_jar(src: Path, dest: Path, form: str):
    """`src` with its movable twins moved out (form `indy`: lazy_class, `nest`: nest_class),
    and the twin classes beside their hosts."""
    moved = 0
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename.endswith(".class") and "META-INF/" not in info.filename:
                host = info.filename[:-len(".class")]
                if form == "indy":
                    data, twins = lazy_class(data, host)
                    suffix = ".duplextwins"
                else:
                    data, twins = nest_class(data, host)
                    suffix = "$DuplexTwins.class"
                if twins:
                    moved += 1
                    zout.writestr(host + suffix, twins)
            zout.writestr(info, data)
    return moved


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--size", choices=["small", "large"], default="small")
    ap.add_argument("--forms", default="nest,indy",
                    help="nest (static nest: the twin class an ordinary class file) and/or indy "
                    "(a hidden class through forwarders)")
    a = ap.parse_args()
    w = benchlib.get(a.program)
    extra = benchlib.prepare(w)
    bsm = benchlib.cache_dir() / "lazy-prototype" / "bsm"
    subprocess.run(["javac", "-d", str(bsm), str(Path(__file__).resolve().parent / "runtime" /
                    "hiddentwin" / "duplex" / "lazy" / "Twins.java")], check=True)
    variants, moved = {}, {}
    for mode, interval in (("checks", 0), ("full", 1000)):
        jars, dest = whole_ab.rewrite(w, "lazy-prototype", mode, [])
        variants["%s@%d eager" % (mode, interval)] = (jars, interval)
        for form in a.forms.split(","):
            (dest / form).mkdir(exist_ok=True)
            lazy = [dest / form / j.name for j in jars]
            moved[mode, form] = sum(lazy_jar(j, l, form) for j, l in zip(jars, lazy))
            variants["%s@%d %s" % (mode, interval, form)] = (lazy, interval)
    reference = benchlib.run(w, extra, size=a.size).output
    def run_variant(v, rep):
        jars, interval = variants[v]
        opts = benchlib.runtime_opts(interval, jars[0].parent / "profile.xml")
        opts[0] += ":" + str(bsm)  # -Xbootclasspath/a: the runtime, then the bootstrap
        r = benchlib.run(w, extra, jars, opts, size=a.size)
        if not r.ok or r.output != reference:
            raise SystemExit("lazy_prototype.py: %s failed or its output differs: %s" % (
                v, r.stderr[-1500:]))
        return r

    cpu = benchlib.interleaved_cpu(w, extra, list(variants), a.reps, run_variant, a.size)
    base = statistics.median(cpu["base"])
    print("\n%s (%s input), %d repetitions; uninstrumented %.2f s CPU; classes with a twin "
          "class: %s\n" % (w.name, a.size, a.reps, base, ", ".join(
              "%s %s %d" % (m, f, n) for (m, f), n in moved.items())))
    print("| configuration | overhead, median (range) |")
    print("| --- | --- |")
    for v in variants:
        print("| %s | %s |" % (v, benchlib.overhead_cell(cpu[v], base)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
