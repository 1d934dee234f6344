/* HotSpot 17 asks its disassembler plug-in for decode_instructions_virtual (the interface since
 * JDK 13); Debian 12's plug-in (libhsdis0-fcml) still exports only the older
 * decode_instructions, so HotSpot loads it, finds no entry point and prints machine code as hex.
 * This forwards the new entry point to the old one. HotSpot hands the code in place (buffer is
 * the code at start_va), so the old interface, which reads and names the same addresses, prints
 * the same listing. */
#include <stdint.h>

typedef void* (*event_callback)(void*, const char*, void*);
typedef int (*printf_callback)(void*, const char*, ...);

extern void* decode_instructions(void* start, void* end, event_callback event, void* event_stream,
                                 printf_callback printf_fn, void* printf_stream,
                                 const char* options);

void* decode_instructions_virtual(uintptr_t start_va, uintptr_t end_va, unsigned char* buffer,
                                  uintptr_t length, event_callback event, void* event_stream,
                                  printf_callback printf_fn, void* printf_stream,
                                  const char* options, int newline) {
  (void)start_va;
  (void)end_va;
  (void)newline;
  return decode_instructions(buffer, buffer + length, event, event_stream, printf_fn, printf_stream,
                             options);
}
