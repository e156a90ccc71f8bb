/* tests/unit/knn_numpy.h — numpy as an oracle at test time (header-only, test code).
 *
 * A test builds a small Python script (input arrays written out with %.17g, then numpy code that
 * computes `res`), runs it with /usr/bin/python3 and reads back the flattened result. A missing
 * python3 or numpy, a script error or a wrong element count returns NULL, and the caller fails
 * the test: a missing oracle is never a pass.
 *
 *   np_script s = {0};
 *   nps_array(&s, "x", vals, n, shape, dim);
 *   nps_printf(&s, "res = np.sqrt(x)\n");
 *   double *want = nps_run(&s, n);   // NULL -> CHECK fails
 */
#ifndef PTE_TESTS_UNIT_KNN_NUMPY_H
#define PTE_TESTS_UNIT_KNN_NUMPY_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"

typedef struct np_script {
  char *buf;
  size_t len, cap;
} np_script;

static void nps_printf(np_script *s, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    size_t room = s->cap - s->len;
    int n = s->buf ? vsnprintf(s->buf + s->len, room, fmt, ap) : -1;
    va_end(ap);
    if (n >= 0 && (size_t)n < room) {
      s->len += (size_t)n;
      return;
    }
    size_t nc = s->cap ? s->cap * 2 : 4096;
    if (n >= 0 && nc < s->len + (size_t)n + 1) nc = s->len + (size_t)n + 1;
    char *nb = (char *)realloc(s->buf, nc);
    if (!nb) abort();
    s->buf = nb;
    s->cap = nc;
    if (s->len == 0) s->buf[0] = 0;
  }
}

/* name = np.array([...], dtype=float64).reshape(shape) (NaN/inf written as float('nan') etc.). */
static void nps_array(np_script *s, const char *name, const double *v, size_t n, const int32_t *shape,
                      int dim) {
  if (s->len == 0) nps_printf(s, "import numpy as np\nnan = float('nan'); inf = float('inf')\n");
  nps_printf(s, "%s = np.array([", name);
  for (size_t i = 0; i < n; i++) {
    if (v[i] != v[i]) nps_printf(s, "nan,");
    else if (v[i] == 1.0 / 0.0) nps_printf(s, "inf,");
    else if (v[i] == -1.0 / 0.0) nps_printf(s, "-inf,");
    else nps_printf(s, "%.17g,", v[i]);
  }
  nps_printf(s, "], dtype=np.float64).reshape((");
  for (int d = 0; d < dim; d++) nps_printf(s, "%d,", (int)shape[d]);
  nps_printf(s, "))\n");
}

/* Runs the script; returns `expect_n` doubles (malloc'd) of np.ravel(res), or NULL. */
static double *nps_run(np_script *s, size_t expect_n) {
  nps_printf(s, "res = np.asarray(res, dtype=np.float64).ravel()\n"
                "print(res.size, ' '.join(repr(float(v)) for v in res))\n");
  char name[64];
  snprintf(name, sizeof name, "pte_knn_np_%ld.py", (long)getpid());
  const char *path = test_tmp_path(name);
  double *out = NULL;
  if (test_write_file(path, s->buf, s->len) != 0) {
    fprintf(stderr, "    numpy oracle: cannot write %s\n", path);
  } else {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s", path);
    int code = -1;
    char *text = test_run_capture(cmd, &code);
    if (!text || code != 0) {
      fprintf(stderr, "    numpy oracle failed (exit %d): is /usr/bin/python3 with numpy installed?\n", code);
    } else {
      char *p = text, *e;
      long cnt = strtol(p, &e, 10);
      if (e == p || cnt < 0 || (size_t)cnt != expect_n) {
        fprintf(stderr, "    numpy oracle: expected %zu values, got '%.80s'\n", expect_n, text);
      } else {
        out = (double *)malloc((expect_n ? expect_n : 1) * sizeof(double));
        p = e;
        for (size_t i = 0; i < expect_n && out; i++) {
          out[i] = strtod(p, &e);
          if (e == p) {
            fprintf(stderr, "    numpy oracle: bad number at %zu\n", i);
            free(out);
            out = NULL;
          }
          p = e;
        }
      }
    }
    free(text);
    remove(path);
  }
  free(s->buf);
  s->buf = NULL;
  s->len = s->cap = 0;
  return out;
}

#endif
