/* The process's CPU time in nanoseconds, for bench/workloads/Repeat.java.
 *
 * OperatingSystemMXBean.getProcessCpuTime() on Linux counts clock ticks: every iteration's CPU
 * time came in steps of 10 ms, 7% of one of xalan's iterations (bench/README.md, "Noise").
 * CLOCK_PROCESS_CPUTIME_ID counts every thread of the process, those that ended too (sunflow's
 * render threads end with each iteration), in nanoseconds. benchlib.py compiles this beside
 * Repeat's classes and passes it as -Drepeat.cpuclock=PATH. */
#include <jni.h>
#include <time.h>

JNIEXPORT jlong JNICALL Java_Repeat_processCpuNanos(JNIEnv* env, jclass cls) {
  (void)env;
  (void)cls;
  struct timespec t;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return -1;
  return (jlong)t.tv_sec * 1000000000LL + t.tv_nsec;
}
