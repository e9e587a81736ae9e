/*
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** What every benchmark driver reports besides its figures: the machine it
** ran on (printed first, since an absolute figure only means something
** next to it), the load average, and medians and ranges over rounds.
** Needs _POSIX_C_SOURCE or _DEFAULT_SOURCE (sysconf) before any include.
*/
#ifndef BENCH_MACHINE_H
#define BENCH_MACHINE_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* First line of `path` (trimmed) into buf; "" when unreadable. */
static inline void read_line(const char *path, char *buf, size_t n) {
  FILE *fp = fopen(path, "r");
  buf[0] = 0;
  if (!fp) return;
  if (fgets(buf, (int)n, fp)) buf[strcspn(buf, "\n")] = 0;
  fclose(fp);
}

/* The value of the first "key<spaces>: value" line of /proc/<file>. */
static inline void proc_field(const char *file, const char *key, char *buf,
                              size_t n) {
  char line[512];
  FILE *fp = fopen(file, "r");
  buf[0] = 0;
  if (!fp) return;
  size_t kl = strlen(key);
  while (fgets(line, sizeof line, fp)) {
    if (strncmp(line, key, kl) != 0) continue;
    const char *v = strchr(line, ':');
    if (!v) continue;
    v++;
    while (*v == ' ' || *v == '\t') v++;
    snprintf(buf, n, "%s", v);
    buf[strcspn(buf, "\n")] = 0;
    break;
  }
  fclose(fp);
}

/* What the figures depend on, printed before them: a ratio travels between
** machines, an absolute figure only means something next to this. */
static inline void print_machine(void) {
  char model[256], mem[64], caches[512] = "", b[256];
  proc_field("/proc/cpuinfo", "model name", model, sizeof model);
  proc_field("/proc/meminfo", "MemTotal", mem, sizeof mem);
  for (int i = 0; i < 10; i++) {
    char path[128], level[16], type[32], size[32], shared[64];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    read_line(path, level, sizeof level);
    if (!level[0]) break;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
    read_line(path, type, sizeof type);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    read_line(path, size, sizeof size);
    snprintf(path, sizeof path,
             "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
    read_line(path, shared, sizeof shared);
    if (strcmp(type, "Instruction") == 0) continue;
    size_t u = strlen(caches);
    snprintf(caches + u, sizeof caches - u, "%sL%s%s %s (CPUs %s)",
             u ? ", " : "", level, strcmp(type, "Data") == 0 ? "d" : "", size,
             shared);
  }
  struct utsname un;
  if (uname(&un) != 0) strcpy(un.release, "?");
  time_t t = time(NULL);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
  printf("## Machine\n\n");
  printf("CPU:      %s; %ld CPUs online\n", model[0] ? model : "unknown",
         sysconf(_SC_NPROCESSORS_ONLN));
  printf("caches:   %s (sysfs, cpu0; a VM may report the host's)\n",
         caches[0] ? caches : "unknown");
  long long mem_kb = atoll(mem);
  if (mem_kb > 0)
    printf("memory:   %.1f GiB\n", (double)mem_kb / 1048576.0);
  else
    printf("memory:   unknown\n");
  printf("SQLite:   %s (library), compiler: %s%s, kernel %s\n",
         sqlite3_libversion(),
#if defined(__clang__)
         "", __VERSION__,
#elif defined(__GNUC__)
         "gcc ", __VERSION__,
#else
         "", "unknown",
#endif
         un.release);
  snprintf(b, sizeof b, "%s", date);
  printf("date:     %s\n", b);
  fflush(stdout);
}

/* The device under `dir` and its read-ahead: a cold mmap read faults in
** read_ahead_kb around the page it wants. */
static inline void print_disk(const char *dir) {
  struct stat st;
  char path[128], ra[32] = "", rot[32] = "";
  if (stat(dir, &st) != 0) return;
  unsigned maj = major(st.st_dev), min = minor(st.st_dev);
  snprintf(path, sizeof path, "/sys/dev/block/%u:%u/queue/read_ahead_kb", maj, min);
  read_line(path, ra, sizeof ra);
  if (!ra[0]) { /* a partition: its disk's queue */
    snprintf(path, sizeof path, "/sys/dev/block/%u:%u/../queue/read_ahead_kb", maj, min);
    read_line(path, ra, sizeof ra);
  }
  snprintf(path, sizeof path, "/sys/dev/block/%u:%u/queue/rotational", maj, min);
  read_line(path, rot, sizeof rot);
  printf("disk:     device %u:%u under %s, read_ahead_kb %s, rotational %s\n", maj,
         min, dir, ra[0] ? ra : "?", rot[0] ? rot : "?");
}

/* The 1-minute load average, as /proc/loadavg writes it; "" if unknown. */
static inline void read_loadavg(char *buf, size_t n) {
  FILE *fp = fopen("/proc/loadavg", "r");
  buf[0] = 0;
  if (fp) {
    if (fgets(buf, (int)n, fp)) buf[strcspn(buf, " ")] = 0;
    fclose(fp);
  }
}

static inline int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median of n figures (n >= 1; v is left as it was). */
static inline double median(const double *v, int n) {
  double *s = malloc(sizeof(double) * (size_t)n);
  if (s == NULL) {
    fprintf(stderr, "median: out of memory\n");
    exit(2);
  }
  memcpy(s, v, sizeof(double) * (size_t)n);
  qsort(s, (size_t)n, sizeof(double), cmp_double);
  double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  free(s);
  return m;
}

static inline void minmax(const double *v, int n, double *lo, double *hi) {
  *lo = *hi = v[0];
  for (int i = 1; i < n; i++) {
    if (v[i] < *lo) *lo = v[i];
    if (v[i] > *hi) *hi = v[i];
  }
}

#endif
