/* Status names and the allocation-free message formatter. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/status.h"
#include "base/vformat.h"

const char *pte_status_name(pte_status s) {
  switch (s) {
    case PTE_OK: return "Ok";
    case PTE_ERR_INTERNAL: return "Internal";
    case PTE_ERR_INVALID_STATE: return "InvalidState";
    case PTE_END_OF_METHOD: return "EndOfMethod";
    case PTE_ERR_ALREADY_LOADED: return "AlreadyLoaded";
    case PTE_ERR_NOT_SUPPORTED: return "NotSupported";
    case PTE_ERR_NOT_IMPLEMENTED: return "NotImplemented";
    case PTE_ERR_INVALID_ARGUMENT: return "InvalidArgument";
    case PTE_ERR_INVALID_TYPE: return "InvalidType";
    case PTE_ERR_OPERATOR_MISSING: return "OperatorMissing";
    case PTE_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS: return "RegistrationExceedingMaxKernels";
    case PTE_ERR_REGISTRATION_ALREADY_REGISTERED: return "RegistrationAlreadyRegistered";
    case PTE_ERR_NOT_FOUND: return "NotFound";
    case PTE_ERR_MEMORY_ALLOCATION_FAILED: return "MemoryAllocationFailed";
    case PTE_ERR_ACCESS_FAILED: return "AccessFailed";
    case PTE_ERR_INVALID_PROGRAM: return "InvalidProgram";
    case PTE_ERR_INVALID_EXTERNAL_DATA: return "InvalidExternalData";
    case PTE_ERR_OUT_OF_RESOURCES: return "OutOfResources";
    case PTE_ERR_DELEGATE_INVALID_COMPATIBILITY: return "DelegateInvalidCompatibility";
    case PTE_ERR_DELEGATE_MEMORY_ALLOCATION_FAILED: return "DelegateMemoryAllocationFailed";
    case PTE_ERR_DELEGATE_INVALID_HANDLE: return "DelegateInvalidHandle";
  }
  return "Unknown";
}

typedef struct out_buf {
  char *p;
  size_t cap, len;
} out_buf;

static void put_c(out_buf *o, char c) {
  if (o->len + 1 < o->cap) o->p[o->len] = c;
  o->len++;
}

static void put_s(out_buf *o, const char *s) {
  if (!s) s = "(null)";
  while (*s) put_c(o, *s++);
}

static void put_u(out_buf *o, unsigned long long v, unsigned base) {
  char tmp[24];
  int n = 0;
  do {
    unsigned d = (unsigned)(v % base);
    tmp[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
    v /= base;
  } while (v);
  while (n) put_c(o, tmp[--n]);
}

static void put_i(out_buf *o, long long v) {
  if (v < 0) {
    put_c(o, '-');
    put_u(o, (unsigned long long)(-(v + 1)) + 1u, 10);
  } else {
    put_u(o, (unsigned long long)v, 10);
  }
}

size_t pte_vformat(char *buf, size_t cap, const char *fmt, va_list ap) {
  out_buf o = {buf, cap, 0};
  for (const char *f = fmt; *f; f++) {
    if (*f != '%') { put_c(&o, *f); continue; }
    f++;
    int lng = 0, sz = 0;
    while (*f == 'l') { lng++; f++; }
    if (*f == 'z') { sz = 1; f++; }
    switch (*f) {
      case 's': put_s(&o, va_arg(ap, const char *)); break;
      case 'c': put_c(&o, (char)va_arg(ap, int)); break;
      case '%': put_c(&o, '%'); break;
      case 'd':
      case 'i':
        if (sz) put_i(&o, (long long)va_arg(ap, ptrdiff_t));
        else if (lng >= 2) put_i(&o, va_arg(ap, long long));
        else if (lng == 1) put_i(&o, va_arg(ap, long));
        else put_i(&o, va_arg(ap, int));
        break;
      case 'u':
      case 'x': {
        unsigned base = *f == 'x' ? 16 : 10;
        if (sz) put_u(&o, va_arg(ap, size_t), base);
        else if (lng >= 2) put_u(&o, va_arg(ap, unsigned long long), base);
        else if (lng == 1) put_u(&o, va_arg(ap, unsigned long), base);
        else put_u(&o, va_arg(ap, unsigned), base);
        break;
      }
      case '\0': f--; break;
      default: put_c(&o, '%'); put_c(&o, *f); break;
    }
  }
  if (cap) buf[o.len < cap ? o.len : cap - 1] = '\0';
  return o.len;
}

pte_status pte_error_set(pte_error_info *err, pte_status s, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    err->status = s;
    pte_vformat(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return s;
}
