/*
** What every benchmark driver reports besides its figures: the machine it
** ran on (printed first, since an absolute figure only means something
** next to it), the disk, the load average, and medians and ranges over
** rounds.  Needs _POSIX_C_SOURCE or _DEFAULT_SOURCE (sysconf) before any
** include.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
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

/* ------------------------------------------------------------ machine */

/* First line of `path` (trimmed) into buf; "" when unreadable. */
static inline void read_line(const char *path, char *buf, size_t n) {
  FILE *fp = fopen(path, "r");
  buf[0] = 0;
  if (!fp) return;
  if (fgets(buf, (int)n, fp)) buf[strcspn(buf, "\n")] = 0;
  fclose(fp);
}

/* The value of the first "key<spaces>: value" line of /proc/<file>. */
static inline void proc_field(const char *file, const char *key, char *buf, size_t n) {
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

/* ------------------------------------------------------------ caches */

/* The data and unified caches one CPU sees, each figure with where it came
** from: sysfs where the kernel exports it, else glibc's sysconf (which
** reads CPUID), else CPUID itself.  A virtual machine's CPUID describes
** the host's caches, whose last level it shares with other guests. */
enum { MAX_CACHES = 8 };
typedef struct cache_level {
  int level;
  int data;            /* 1: data cache, 0: unified */
  long long bytes;
  int sharing;         /* CPUs sharing it; 0 when unknown */
  char cpus[64];       /* sysfs's list of them, "" when not from sysfs */
  const char *source;
} cache_level;

/* "48K", "1024K", "32M" (sysfs's sizes) in bytes; 0 when unreadable. */
static inline long long parse_size(const char *s) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (end == s || v <= 0) return 0;
  if (*end == 'K') v *= 1024;
  else if (*end == 'M') v *= 1024 * 1024;
  else if (*end == 'G') v *= 1024LL * 1024 * 1024;
  return v;
}

static inline int caches_sysfs(cache_level *c) {
  int n = 0;
  for (int i = 0; i < 16 && n < MAX_CACHES; i++) {
    char path[128], level[16], type[32], size[32];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    read_line(path, level, sizeof level);
    if (!level[0]) break;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
    read_line(path, type, sizeof type);
    if (strcmp(type, "Instruction") == 0) continue;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    read_line(path, size, sizeof size);
    c[n].level = atoi(level);
    c[n].data = strcmp(type, "Data") == 0;
    c[n].bytes = parse_size(size);
    c[n].sharing = 0;
    snprintf(path, sizeof path,
             "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
    read_line(path, c[n].cpus, sizeof c[n].cpus);
    c[n].source = "sysfs";
    if (c[n].level > 0 && c[n].bytes > 0) n++;
  }
  return n;
}

static inline int caches_sysconf(cache_level *c) {
  int n = 0;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && \
    defined(_SC_LEVEL3_CACHE_SIZE)
  static const int names[3] = {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE,
                               _SC_LEVEL3_CACHE_SIZE};
  for (int i = 0; i < 3; i++) {
    long v = sysconf(names[i]);
    if (v <= 0) continue; /* -1 or 0: unknown or absent */
    c[n].level = i + 1;
    c[n].data = i == 0;
    c[n].bytes = v;
    c[n].sharing = 0;
    c[n].cpus[0] = 0;
    c[n].source = "sysconf, from CPUID";
    n++;
  }
#else
  (void)c;
#endif
  return n;
}

#if (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define HAVE_CPUID 1

/* 1 when CPUID says a hypervisor runs this CPU (leaf 1, ECX bit 31). */
static inline int cpuid_hypervisor(void) {
  unsigned a, b, c, d;
  return __get_cpuid(1, &a, &b, &c, &d) && (c >> 31 & 1);
}

/* The deterministic cache leaf: 0x8000001D on AMD and Hygon (with the
** topology extensions), 4 on Intel and others; both lay a level out the
** same way. */
static inline int caches_cpuid(cache_level *c) {
  unsigned a, b, cx, d, leaf = 4;
  if (!__get_cpuid(0, &a, &b, &cx, &d)) return 0;
  char vendor[13];
  memcpy(vendor, &b, 4);
  memcpy(vendor + 4, &d, 4);
  memcpy(vendor + 8, &cx, 4);
  vendor[12] = 0;
  if (strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0) {
    unsigned top = __get_cpuid_max(0x80000000u, NULL);
    if (top < 0x8000001Du || !__get_cpuid(0x80000001u, &a, &b, &cx, &d) ||
        !(cx >> 22 & 1))
      return 0;
    leaf = 0x8000001Du;
  } else if (a < 4) {
    return 0;
  }
  int n = 0;
  for (unsigned i = 0; i < 16 && n < MAX_CACHES; i++) {
    __cpuid_count(leaf, i, a, b, cx, d);
    unsigned type = a & 31; /* 0: no more; 1 data, 2 instruction, 3 unified */
    if (type == 0) break;
    if (type == 2) continue;
    c[n].level = (int)(a >> 5 & 7);
    c[n].data = type == 1;
    c[n].bytes = (long long)((b >> 22 & 0x3ff) + 1) * ((b >> 12 & 0x3ff) + 1) *
                 ((b & 0xfff) + 1) * ((long long)cx + 1);
    c[n].sharing = (int)(a >> 14 & 0xfff) + 1;
    c[n].cpus[0] = 0;
    c[n].source = leaf == 4 ? "CPUID leaf 4" : "CPUID leaf 0x8000001D";
    n++;
  }
  return n;
}
#else
static inline int cpuid_hypervisor(void) { return 0; }
static inline int caches_cpuid(cache_level *c) { (void)c; return 0; }
#endif

/* "48 KiB", "1 MiB", "384 MiB". */
static inline const char *human_kib(long long bytes, char *buf, size_t n) {
  if (bytes >= 1048576 && bytes % 1048576 == 0)
    snprintf(buf, n, "%lld MiB", bytes / 1048576);
  else if (bytes >= 1048576)
    snprintf(buf, n, "%.1f MiB", (double)bytes / 1048576);
  else
    snprintf(buf, n, "%lld KiB", bytes / 1024);
  return buf;
}

/* What a guest plausibly owns of a shared last-level cache: server parts
** give a core 1.5 to 4 MiB of L3 (a few 12), so a figure above 8 MiB for
** each CPU of a virtual machine is the host's cache, shared with other
** guests, and not what this one can use. */
#define GUEST_LLC_PER_CPU (8LL << 20)

/* The last (largest-level) entry of c[0..n). */
static inline int last_level(const cache_level *c, int n) {
  int last = 0;
  for (int i = 1; i < n; i++)
    if (c[i].level >= c[last].level) last = i;
  return last;
}

/* The "caches:" line, and a note on the last level in a virtual machine.
** BENCH_CACHES=sysconf or cpuid starts at that source (to see what a
** machine without sysfs's directory prints). */
static inline void print_caches(void) {
  cache_level c[MAX_CACHES];
  int n = 0;
  const char *from = getenv("BENCH_CACHES");
  int start = from && strcmp(from, "cpuid") == 0     ? 2
              : from && strcmp(from, "sysconf") == 0 ? 1
                                                     : 0;
  if (start <= 0) n = caches_sysfs(c);
  if (n == 0 && start <= 1) n = caches_sysconf(c);
  if (n == 0) n = caches_cpuid(c);
  if (n == 0) {
    printf("caches:   unknown (no sysfs cache directory, nothing from sysconf "
           "or CPUID)\n");
    return;
  }
  char line[512] = "", size[32];
  for (int i = 0; i < n; i++) {
    size_t u = strlen(line);
    char share[96] = "";
    if (c[i].cpus[0])
      snprintf(share, sizeof share, ", CPUs %s", c[i].cpus);
    else if (c[i].sharing > 0)
      snprintf(share, sizeof share, ", shared by %d CPU%s", c[i].sharing,
               c[i].sharing == 1 ? "" : "s");
    snprintf(line + u, sizeof line - u, "%sL%d%s %s (%s%s)", u ? ", " : "",
             c[i].level, c[i].data ? "d" : "",
             human_kib(c[i].bytes, size, sizeof size), c[i].source, share);
  }
  printf("caches:   %s\n", line);
  const cache_level *l = &c[last_level(c, n)];
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (!cpuid_hypervisor() || l->level < 2 || cpus <= 0) return;
  /* sysconf and sysfs both come from CPUID; say what its cache leaf gives
  ** when that differs (glibc takes AMD's L3 from leaf 0x80000006: every
  ** L3 of the package). */
  char other[128] = "";
  cache_level d[MAX_CACHES];
  int nd = strcmp(l->source, "sysconf, from CPUID") == 0 ? caches_cpuid(d) : 0;
  if (nd > 0) {
    const cache_level *m = &d[last_level(d, nd)];
    if (m->level == l->level && m->bytes != l->bytes)
      snprintf(other, sizeof other, " (%s: %s, shared by %d CPUs)", m->source,
               human_kib(m->bytes, size, sizeof size), m->sharing);
  }
  if (l->bytes > GUEST_LLC_PER_CPU * cpus)
    printf("          a virtual machine: L%d %s is what CPUID reports%s, over "
           "%lld MiB for each of its %ld CPUs: the host's cache, shared with "
           "other guests, not this guest's share (make bench's memory floor "
           "shows what it can use)\n",
           l->level, human_kib(l->bytes, size, sizeof size), other,
           GUEST_LLC_PER_CPU >> 20, cpus);
  else
    printf("          a virtual machine: the caches are what CPUID reports "
           "of the host's%s\n", other);
}

/* What the figures depend on, printed before them: a ratio travels between
** machines, an absolute figure only means something next to this. */
static inline void print_machine(void) {
  char model[256], mem[64], b[256];
  proc_field("/proc/cpuinfo", "model name", model, sizeof model);
  proc_field("/proc/meminfo", "MemTotal", mem, sizeof mem);
  struct utsname un;
  if (uname(&un) != 0) strcpy(un.release, "?");
  time_t t = time(NULL);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
  printf("## Machine\n\n");
  printf("CPU:      %s; %ld CPUs online\n", model[0] ? model : "unknown",
         sysconf(_SC_NPROCESSORS_ONLN));
  print_caches();
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
** up to read_ahead_kb around the page it wants. */
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
    if (fgets(buf, (int)n, fp)) buf[strcspn(buf, " ")] = 0; /* 1-min average */
    fclose(fp);
  }
}

#endif
