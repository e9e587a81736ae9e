/*
** Replay driver: feeds every file of a fuzz target's seed corpus and
** regression folder to its LLVMFuzzerTestOneInput, without libFuzzer, and
** prints TAP (one "ok" line per file), so `make test` runs the corpus in the
** plain and the ASan+UBSan build.  A broken invariant aborts the process,
** which prove reports as a failure.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   build/plain/fuzz-filter.t             the compiled-in folders
**   build/plain/fuzz-filter.t DIR|FILE..  those instead
**
** Each input is copied into an exactly sized heap buffer, as libFuzzer does.
** Files whose name starts with '.' (.gitkeep) are skipped.
*/
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef REPLAY_CORPUS
#error "build with -DREPLAY_CORPUS='\"dir\"' -DREPLAY_REGRESSIONS='\"dir\"'"
#endif

static int count;
static const char *current; /* the input being replayed */

/* A broken invariant or a sanitizer report ends in abort(): say which input
** did it (prove shows stderr, not the TAP comments on stdout). */
static void on_abort(int sig) {
  static const char head[] = "replay: aborted on input ";
  (void)sig;
  if (current) {
    fputs(head, stderr);
    fputs(current, stderr);
    fputs("\n", stderr);
  }
  signal(SIGABRT, SIG_DFL);
  raise(SIGABRT);
}

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    printf("not ok %d - %s: cannot open\n", ++count, path);
    return 1;
  }
  size_t cap = 4096, len = 0;
  unsigned char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
    len += got;
    if (len == cap) {
      unsigned char *more = realloc(buf, cap *= 2);
      if (more == NULL) free(buf);
      buf = more;
    }
  }
  fclose(f);
  if (buf == NULL) {
    printf("not ok %d - %s: out of memory\n", ++count, path);
    return 1;
  }
  /* Exactly sized, so that an over-read of the input is a heap overflow. */
  unsigned char *exact = malloc(len ? len : 1);
  if (exact == NULL) {
    free(buf);
    printf("not ok %d - %s: out of memory\n", ++count, path);
    return 1;
  }
  memcpy(exact, buf, len);
  free(buf);
  printf("# replaying %s (%zu bytes)\n", path, len);
  fflush(stdout);
  current = path;
  LLVMFuzzerTestOneInput(exact, len);
  current = NULL;
  free(exact);
  printf("ok %d - %s\n", ++count, path);
  fflush(stdout);
  return 0;
}

/* scandir filter: 1 keeps an entry (every name not starting with a dot). */
static int keep_name(const struct dirent *e) {
  return e->d_name[0] != '.';
}

static int run_path(const char *path, int must_exist) {
  struct stat st;
  if (stat(path, &st) != 0) {
    if (!must_exist) return 0;
    printf("not ok %d - %s: missing\n", ++count, path);
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) return run_file(path);
  struct dirent **names;
  int n = scandir(path, &names, keep_name, alphasort);
  if (n < 0) {
    printf("not ok %d - %s: cannot list\n", ++count, path);
    return 1;
  }
  int failed = 0;
  for (int i = 0; i < n; i++) {
    size_t len = strlen(path) + strlen(names[i]->d_name) + 2;
    char *full = malloc(len);
    if (full) {
      snprintf(full, len, "%s/%s", path, names[i]->d_name);
      if (stat(full, &st) == 0 && S_ISREG(st.st_mode)) failed |= run_file(full);
      free(full);
    }
    free(names[i]);
  }
  free(names);
  return failed;
}

int main(int argc, char **argv) {
  int failed = 0;
  signal(SIGABRT, on_abort);
  if (argc > 1) {
    for (int i = 1; i < argc; i++) failed |= run_path(argv[i], 1);
  } else {
    failed |= run_path(REPLAY_CORPUS, 1);
    failed |= run_path(REPLAY_REGRESSIONS, 0);
  }
  /* The corpus is committed: finding nothing means it went missing. */
  if (count == 0) {
    printf("not ok 1 - found inputs to replay\n1..1\n");
    return 1;
  }
  printf("1..%d\n", count);
  return failed;
}
