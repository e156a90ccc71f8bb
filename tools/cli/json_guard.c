/* --json output is one complete JSON document or nothing: the verb's stdout is captured and only
 * printed when it parses; failures print one error object (json_guard.h). */
#define _GNU_SOURCE
#include "json_guard.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonw.h"
#include "pte/status.h"

/* ------------------------------------------------------------------ strict validator */

typedef struct jv {
  const unsigned char *p, *e;
  int depth;
  bool ok_false; /* the top-level object has "ok": false */
} jv;

static void jv_ws(jv *v) {
  while (v->p < v->e && (*v->p == ' ' || *v->p == '\t' || *v->p == '\n' || *v->p == '\r')) v->p++;
}

static bool jv_lit(jv *v, const char *w) {
  size_t n = strlen(w);
  if ((size_t)(v->e - v->p) < n || memcmp(v->p, w, n) != 0) return false;
  v->p += n;
  return true;
}

static bool jv_hex4(jv *v, unsigned *out) {
  if (v->e - v->p < 4) return false;
  unsigned x = 0;
  for (int i = 0; i < 4; i++) {
    unsigned c = v->p[i], d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return false;
    x = x << 4 | d;
  }
  v->p += 4;
  *out = x;
  return true;
}

static bool jv_utf8(jv *v) {
  size_t k = jw_utf8_len(v->p, (size_t)(v->e - v->p));
  v->p += k;
  return k > 0;
}

static bool jv_string(jv *v) {
  if (v->p >= v->e || *v->p != '"') return false;
  v->p++;
  while (v->p < v->e) {
    unsigned c = *v->p;
    if (c == '"') {
      v->p++;
      return true;
    }
    if (c < 0x20) return false;
    if (c == '\\') {
      v->p++;
      if (v->p >= v->e) return false;
      c = *v->p++;
      if (c == 'u') {
        unsigned u;
        if (!jv_hex4(v, &u)) return false;
        if (u >= 0xD800 && u <= 0xDBFF) { /* a surrogate pair */
          unsigned lo;
          if (!jv_lit(v, "\\u") || !jv_hex4(v, &lo) || lo < 0xDC00 || lo > 0xDFFF) return false;
        } else if (u >= 0xDC00 && u <= 0xDFFF) {
          return false;
        }
      } else if (!strchr("\"\\/bfnrt", (int)c) || c == 0) {
        return false;
      }
      continue;
    }
    if (!jv_utf8(v)) return false;
  }
  return false;
}

static bool jv_number(jv *v) {
  const unsigned char *s = v->p;
  if (v->p < v->e && *v->p == '-') v->p++;
  if (v->p >= v->e) return false;
  if (*v->p == '0') v->p++;
  else if (*v->p >= '1' && *v->p <= '9')
    while (v->p < v->e && *v->p >= '0' && *v->p <= '9') v->p++;
  else return false;
  if (v->p < v->e && *v->p == '.') {
    v->p++;
    if (v->p >= v->e || *v->p < '0' || *v->p > '9') return false;
    while (v->p < v->e && *v->p >= '0' && *v->p <= '9') v->p++;
  }
  if (v->p < v->e && (*v->p == 'e' || *v->p == 'E')) {
    v->p++;
    if (v->p < v->e && (*v->p == '+' || *v->p == '-')) v->p++;
    if (v->p >= v->e || *v->p < '0' || *v->p > '9') return false;
    while (v->p < v->e && *v->p >= '0' && *v->p <= '9') v->p++;
  }
  return v->p > s;
}

static bool jv_value(jv *v) {
  jv_ws(v);
  if (v->p >= v->e || ++v->depth > 256) return false;
  bool ok;
  unsigned c = *v->p;
  if (c == '{' || c == '[') {
    const unsigned char close = c == '{' ? '}' : ']';
    v->p++;
    jv_ws(v);
    if (v->p < v->e && *v->p == close) {
      v->p++;
      v->depth--;
      return true;
    }
    for (;;) {
      bool ok_key = false;
      if (c == '{') {
        jv_ws(v);
        const unsigned char *k = v->p;
        if (!jv_string(v)) return false;
        ok_key = v->depth == 1 && v->p - k == 4 && memcmp(k, "\"ok\"", 4) == 0;
        jv_ws(v);
        if (v->p >= v->e || *v->p != ':') return false;
        v->p++;
      }
      jv_ws(v);
      const unsigned char *val = v->p;
      if (!jv_value(v)) return false;
      if (ok_key && v->p - val == 5 && memcmp(val, "false", 5) == 0) v->ok_false = true;
      jv_ws(v);
      if (v->p >= v->e) return false;
      if (*v->p == ',') {
        v->p++;
        continue;
      }
      if (*v->p != close) return false;
      v->p++;
      break;
    }
    ok = true;
  } else if (c == '"') {
    ok = jv_string(v);
  } else if (c == 't') {
    ok = jv_lit(v, "true");
  } else if (c == 'f') {
    ok = jv_lit(v, "false");
  } else if (c == 'n') {
    ok = jv_lit(v, "null");
  } else {
    ok = jv_number(v);
  }
  v->depth--;
  return ok;
}

static bool json_doc(const char *s, size_t n, bool *ok_false) {
  jv v = {(const unsigned char *)s, (const unsigned char *)s + n, 0, false};
  if (!jv_value(&v)) return false;
  jv_ws(&v);
  if (ok_false) *ok_false = v.ok_false;
  return v.p == v.e;
}

/* ------------------------------------------------------------------ capture */

static char *slurp(FILE *f, size_t *n) {
  *n = 0;
  if (!f || fflush(f) != 0 || fseek(f, 0, SEEK_END) != 0) return NULL;
  long end = ftell(f);
  if (end < 0 || fseek(f, 0, SEEK_SET) != 0) return NULL;
  char *b = (char *)malloc((size_t)end + 1);
  if (!b) return NULL;
  *n = fread(b, 1, (size_t)end, f);
  b[*n] = 0;
  return b;
}

/* The last non-empty line of the captured stderr, and the pte status it names ("Name (0xNN)"). */
static void last_error(const char *e, size_t n, char *msg, size_t cap, int *code) {
  *code = -1;
  msg[0] = 0;
  size_t end = n;
  while (end > 0 && (e[end - 1] == '\n' || e[end - 1] == '\r' || e[end - 1] == ' ')) end--;
  size_t start = end;
  while (start > 0 && e[start - 1] != '\n') start--;
  size_t len = end - start < cap - 1 ? end - start : cap - 1;
  memcpy(msg, e + start, len);
  msg[len] = 0;
  for (const char *p = msg; (p = strstr(p, " (0x")) != NULL; p++) {
    unsigned v = 0;
    int used = 0;
    if (sscanf(p, " (0x%2x)%n", &v, &used) != 1 || used == 0) continue;
    const char *w = p;
    while (w > msg && w[-1] != ' ' && w[-1] != ':') w--;
    const char *name = pte_status_name((pte_status)v);
    if (name && strlen(name) == (size_t)(p - w) && memcmp(w, name, (size_t)(p - w)) == 0) {
      *code = (int)v;
      return;
    }
  }
}

static bool wants_json(int argc, char **argv) {
  bool json = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return false;
    if (!strcmp(argv[i], "--json")) json = true;
  }
  return json;
}

int pte_cli_run_guarded(const pte_cli_verb *v, int argc, char **argv) {
  if (!wants_json(argc, argv)) return v->run(argc, argv);
  fflush(stdout);
  fflush(stderr);
  FILE *co = tmpfile(), *ce = tmpfile();
  int so = dup(1), se = dup(2);
  if (!co || !ce || so < 0 || se < 0 || dup2(fileno(co), 1) < 0 || dup2(fileno(ce), 2) < 0) {
    if (so >= 0) dup2(so, 1), close(so);
    if (se >= 0) dup2(se, 2), close(se);
    if (co) fclose(co);
    if (ce) fclose(ce);
    fprintf(stderr, "pte %s: cannot capture output for --json\n", v->name);
    return v->run(argc, argv);
  }
  int rc = v->run(argc, argv);
  fflush(stdout);
  fflush(stderr);
  dup2(so, 1);
  dup2(se, 2);
  close(so);
  close(se);
  size_t no = 0, ne = 0;
  char *out = slurp(co, &no), *err = slurp(ce, &ne);
  fclose(co);
  fclose(ce);
  if (err && ne) fwrite(err, 1, ne, stderr);
  bool ok_false = false;
  /* the verb's whole document: on success, or a report of its own failure ("ok": false: prepare,
   * test with failing cases) */
  if (out && no && json_doc(out, no, &ok_false) && (rc == PTE_EXIT_OK || ok_false)) {
    fwrite(out, 1, no, stdout);
  } else {
    char msg[1024];
    int code = -1;
    if (rc == PTE_EXIT_OK) { /* a bug: say so rather than print something that does not parse */
      snprintf(msg, sizeof msg, "pte %s: internal error: the output was not one valid JSON document", v->name);
      code = PTE_ERR_INTERNAL;
      rc = PTE_EXIT_FAIL;
      fprintf(stderr, "%s\n", msg);
    } else {
      last_error(err ? err : "", ne, msg, sizeof msg, &code);
    }
    jsonw w;
    jw_init(&w, stdout);
    jw_obj(&w);
    jw_kbool(&w, "ok", false);
    jw_kstr(&w, "command", v->name);
    jw_kint(&w, "exit_code", rc);
    jw_key(&w, "status");
    if (code >= 0) jw_str(&w, pte_status_name((pte_status)code));
    else jw_null(&w);
    jw_key(&w, "code");
    if (code >= 0) jw_int(&w, code);
    else jw_null(&w);
    jw_kstr(&w, "message", msg[0] ? msg : (rc == PTE_EXIT_USAGE ? "bad command line" : "failed"));
    jw_obj_end(&w);
    jw_end(&w);
  }
  fflush(stdout);
  free(out);
  free(err);
  return rc;
}
