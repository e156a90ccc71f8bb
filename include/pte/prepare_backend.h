/* pte/prepare_backend.h — what a backend implementing the prepare hook needs (header-only; see
 * pte/prepare.h for what the coordinator does with it). Backends include this header (or
 * pte/prepare.h, which includes it) without linking the pte_prepare library.
 *
 * ---- Staleness is never silent: the envelope -------------------------------------------------
 * Every replaced value (named data or processed blob) is stored as an envelope the framework
 * writes around the backend's payload:
 *
 *   off  size  field (little-endian)
 *   0    4     magic "PTEP"
 *   4    4     u32 envelope version (1)
 *   8    32    backend id, NUL-padded (at most 31 characters)
 *   40   4     u32 backend data-format version (chosen by the backend)
 *   44   4     u32 fingerprint length (0..32)
 *   48   32    fingerprint bytes (chosen by the backend: ISA, tile sizes, driver version...), zero
 *              padded
 *   80   8     u64 payload offset from the envelope start (128; a multiple of 64)
 *   88   8     u64 payload size
 *   96   32    reserved, zero
 *   128  ...   payload
 *
 * Segments are 128-aligned in the file, so the payload is 128-aligned in the file and in an
 * mmap'd program. At init a backend calls pte_prepared_envelope_check(): PTE_ERR_NOT_FOUND means
 * portable data (process it as always), PTE_OK gives the payload, and a mismatch is
 * PTE_ERR_DELEGATE_INVALID_COMPATIBILITY (0x30) with a message naming what differs, e.g.
 * "prepared for XnnpackBackend format 2 on 'avx512/tile 8x16', this machine is 'avx2/tile 6x16':
 * run pte prepare again on the portable model".
 *
 * Sealing: once a backend's hook replaces any value, every blob of that backend the hook left
 * alone is stored again in the envelope with its original bytes as the payload, so that a runtime
 * knowing only the portable format rejects the blob at init instead of reading prepared named
 * data as portable (docs/prepare.md). A backend's init must therefore accept an envelope whose
 * payload is its own portable blob (report: pte_prepare_backend_report.blobs_sealed).
 *
 * ---- Worked example: a backend that packs weights stored in named data -----------------------
 *
 *   #include "pte/prepare_backend.h"
 *   #define MY_FORMAT 2
 *   static const char *my_fingerprint(void) { return cpu_has_avx512() ? "avx512/8x16" : "avx2/6x16"; }
 *
 *   static pte_status my_prepare(pte_backend_data_context *ctx, pte_backend_data_output *out) {
 *     const char *fp = my_fingerprint();
 *     pte_status s = pte_backend_data_set_envelope(out, MY_FORMAT, fp, strlen(fp));
 *     pte_backend_data item;
 *     while (s == PTE_OK && (s = pte_next_backend_data(ctx, &item)) == PTE_OK) {
 *       const char *key = my_weight_key(item.processed, item.processed_size);  // parse the blob
 *       pte_freeable_buffer w;
 *       if ((s = pte_named_data_map_get_data(ctx->named_data_map, key, &w)) != PTE_OK) break;
 *       size_t n = my_packed_size(w.size);
 *       void *packed = pte_allocator_alloc(ctx->temp_allocator, n, 64);  // reset per blob
 *       if (!packed) { pte_freeable_buffer_free(&w); s = PTE_ERR_MEMORY_ALLOCATION_FAILED; break; }
 *       my_pack(w.data, w.size, packed);
 *       pte_freeable_buffer_free(&w);
 *       pte_prepared_value v = {packed, n};
 *       s = pte_write_named_data(out, &key, &v, 1);   // copied: `packed` may be reused now
 *     }
 *     return s == PTE_PREPARE_END_OF_INPUT ? PTE_OK : s;
 *   }
 *
 *   static pte_status my_init(pte_backend_init_context *ctx, pte_freeable_buffer *processed, ...) {
 *     ... pte_named_data_map_get_data(ctx->named_data_map, key, &w) ...
 *     pte_prepared_info pi;
 *     const char *fp = my_fingerprint();
 *     pte_status s = pte_prepared_envelope_check(w.data, w.size, "MyBackend", MY_FORMAT, fp,
 *                                                strlen(fp), &pi, ctx->err);
 *     if (s == PTE_OK) use_packed(pi.payload, pi.payload_size);        // no packing at load
 *     else if (s == PTE_ERR_NOT_FOUND) pack_now(w.data, w.size);        // portable model
 *     else return s;                                                    // stale: 0x30
 *   }
 *
 *   static const pte_backend k_my = {NULL, my_init, my_execute, my_destroy, my_prepare};
 *
 * docs/prepare.md has the full guide (delegate-blob replacement, shared keys, fault handling).
 */
#ifndef PTE_PREPARE_BACKEND_H
#define PTE_PREPARE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pte/allocator.h"
#include "pte/backend.h"
#include "pte/named_data_map.h"
#include "pte/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== The prepared-data envelope ============================================================== */

#define PTE_PREPARED_MAGIC "PTEP"
#define PTE_PREPARED_ENVELOPE_VERSION 1u
#define PTE_PREPARED_HEADER_SIZE 128u   /* payload offset written by this version */
#define PTE_PREPARED_PAYLOAD_ALIGN 64u  /* payload offsets are multiples of this */
#define PTE_PREPARED_BACKEND_ID_BYTES 32u /* field size; ids of at most 31 characters */
#define PTE_PREPARED_FINGERPRINT_MAX 32u

typedef struct pte_prepared_info {
  uint32_t envelope_version;
  char backend_id[PTE_PREPARED_BACKEND_ID_BYTES + 1]; /* NUL-terminated */
  uint32_t format_version;
  uint8_t fingerprint[PTE_PREPARED_FINGERPRINT_MAX];
  uint32_t fingerprint_size;
  uint64_t payload_offset;
  uint64_t payload_size;
  const uint8_t *payload; /* blob + payload_offset (NULL when describing a header only) */
} pte_prepared_info;

static inline uint32_t pte_prepared_ld32_(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t pte_prepared_ld64_(const uint8_t *p) {
  return (uint64_t)pte_prepared_ld32_(p) | ((uint64_t)pte_prepared_ld32_(p + 4) << 32);
}
static inline void pte_prepared_st32_(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void pte_prepared_st64_(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* True if `blob` starts with the envelope magic "PTEP" (at least 4 bytes). */
static inline bool pte_prepared_is_envelope(const void *blob, size_t size) {
  return blob && size >= 4 && memcmp(blob, PTE_PREPARED_MAGIC, 4) == 0;
}

/* Parses an envelope. `size` is the blob size; when only the first PTE_PREPARED_HEADER_SIZE bytes
 * are available (e.g. `pte inspect` reading headers), pass total_size = the real size through
 * pte_prepared_describe instead. Results:
 *   PTE_OK                   *out filled, out->payload points into blob
 *   PTE_ERR_NOT_FOUND        no "PTEP" magic: portable (unprepared) data
 *   PTE_ERR_DELEGATE_INVALID_COMPATIBILITY  envelope version newer than this pte understands
 *   PTE_ERR_INVALID_PROGRAM  truncated or malformed envelope (header shorter than 128 bytes,
 *                            fingerprint length > 32, payload offset not a multiple of 64 or
 *                            inside the header, payload past the end of the blob)
 *   PTE_ERR_INVALID_ARGUMENT NULL out */
static inline pte_status pte_prepared_envelope_parse(const void *blob, size_t size, pte_prepared_info *out,
                                                     pte_error_info *err) {
  const uint8_t *b = (const uint8_t *)blob;
  if (!out) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "prepared envelope: NULL output");
  memset(out, 0, sizeof *out);
  if (!pte_prepared_is_envelope(blob, size))
    return pte_error_set(err, PTE_ERR_NOT_FOUND, "not a prepared-data envelope (portable data)");
  if (size < 8) return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "prepared envelope truncated (%zu bytes)", size);
  out->envelope_version = pte_prepared_ld32_(b + 4);
  if (out->envelope_version > PTE_PREPARED_ENVELOPE_VERSION || out->envelope_version == 0)
    return pte_error_set(err, PTE_ERR_DELEGATE_INVALID_COMPATIBILITY,
                         "prepared-data envelope version %u is not supported (this pte reads version %u): "
                         "run pte prepare again on the portable model",
                         out->envelope_version, PTE_PREPARED_ENVELOPE_VERSION);
  if (size < PTE_PREPARED_HEADER_SIZE)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "prepared envelope truncated (%zu bytes, header is %u)", size,
                         PTE_PREPARED_HEADER_SIZE);
  memcpy(out->backend_id, b + 8, PTE_PREPARED_BACKEND_ID_BYTES);
  out->backend_id[PTE_PREPARED_BACKEND_ID_BYTES] = 0;
  out->format_version = pte_prepared_ld32_(b + 40);
  out->fingerprint_size = pte_prepared_ld32_(b + 44);
  if (out->fingerprint_size > PTE_PREPARED_FINGERPRINT_MAX)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "prepared envelope: fingerprint length %u > %u",
                         out->fingerprint_size, PTE_PREPARED_FINGERPRINT_MAX);
  memcpy(out->fingerprint, b + 48, out->fingerprint_size);
  out->payload_offset = pte_prepared_ld64_(b + 80);
  out->payload_size = pte_prepared_ld64_(b + 88);
  if (out->payload_offset < PTE_PREPARED_HEADER_SIZE || out->payload_offset % PTE_PREPARED_PAYLOAD_ALIGN != 0 ||
      out->payload_offset > size || out->payload_size > (uint64_t)size - out->payload_offset)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                         "prepared envelope: payload %llu bytes at offset %llu does not fit its %zu-byte blob",
                         (unsigned long long)out->payload_size, (unsigned long long)out->payload_offset, size);
  out->payload = b + out->payload_offset;
  return PTE_OK;
}

/* Writes a fingerprint as text into buf: the bytes themselves when they are all printable ASCII
 * (quoted: 'avx2/tile 6x16'), else "0x" + lowercase hex. Returns buf. */
static inline const char *pte_prepared_fingerprint_text(const void *fp, size_t n, char *buf, size_t buf_size) {
  static const char hex[] = "0123456789abcdef";
  const uint8_t *p = (const uint8_t *)fp;
  size_t o = 0;
  bool printable = true;
  if (!buf || buf_size == 0) return buf;
  for (size_t i = 0; i < n; i++)
    if (p[i] < 0x20 || p[i] > 0x7e || p[i] == '\'') printable = false;
  if (n == 0) {
    if (buf_size > 2) memcpy(buf, "''", 3);
    else buf[0] = 0;
    return buf;
  }
  if (printable) {
    if (o + 1 < buf_size) buf[o++] = '\'';
    for (size_t i = 0; i < n && o + 1 < buf_size; i++) buf[o++] = (char)p[i];
    if (o + 1 < buf_size) buf[o++] = '\'';
  } else {
    if (o + 2 < buf_size) {
      buf[o++] = '0';
      buf[o++] = 'x';
    }
    for (size_t i = 0; i < n && o + 2 < buf_size; i++) {
      buf[o++] = hex[p[i] >> 4];
      buf[o++] = hex[p[i] & 15];
    }
  }
  buf[o] = 0;
  return buf;
}

/* What a backend calls at init on data that may be prepared. Parses the envelope and checks it
 * was made for `backend_id`, `format_version` and this machine's `fingerprint`:
 *   PTE_OK                 prepared for exactly this: *out (may be NULL) gives the payload
 *   PTE_ERR_NOT_FOUND      portable data (no envelope): process it the normal way
 *   PTE_ERR_DELEGATE_INVALID_COMPATIBILITY (0x30)  prepared for another backend, format version
 *                          or device; the message names what was expected and what was found:
 *                          "prepared for XnnpackBackend format 2 on 'avx512/tile 8x16', this
 *                          machine is 'avx2/tile 6x16' (XnnpackBackend format 2): ..."
 *   PTE_ERR_INVALID_PROGRAM / PTE_ERR_INVALID_ARGUMENT  see pte_prepared_envelope_parse
 * The fingerprint is compared byte for byte (fingerprint_size <= 32; longer ones are an
 * invalid argument). */
static inline pte_status pte_prepared_envelope_check(const void *blob, size_t size, const char *backend_id,
                                                     uint32_t format_version, const void *fingerprint,
                                                     size_t fingerprint_size, pte_prepared_info *out,
                                                     pte_error_info *err) {
  pte_prepared_info tmp;
  pte_prepared_info *pi = out ? out : &tmp;
  if (!backend_id || fingerprint_size > PTE_PREPARED_FINGERPRINT_MAX || (!fingerprint && fingerprint_size))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "prepared envelope check: bad backend id or fingerprint");
  pte_status s = pte_prepared_envelope_parse(blob, size, pi, err);
  if (s != PTE_OK) return s;
  bool same_id = strncmp(pi->backend_id, backend_id, PTE_PREPARED_BACKEND_ID_BYTES) == 0 &&
                 strlen(backend_id) <= PTE_PREPARED_BACKEND_ID_BYTES;
  bool same_fp = pi->fingerprint_size == fingerprint_size &&
                 (fingerprint_size == 0 || memcmp(pi->fingerprint, fingerprint, fingerprint_size) == 0);
  if (same_id && pi->format_version == format_version && same_fp) return PTE_OK;
  char have[2 * PTE_PREPARED_FINGERPRINT_MAX + 4], want[2 * PTE_PREPARED_FINGERPRINT_MAX + 4];
  pte_prepared_fingerprint_text(pi->fingerprint, pi->fingerprint_size, have, sizeof have);
  pte_prepared_fingerprint_text(fingerprint, fingerprint_size, want, sizeof want);
  const char *what = !same_id ? "another backend" : pi->format_version != format_version ? "another data format" : "another device";
  return pte_error_set(err, PTE_ERR_DELEGATE_INVALID_COMPATIBILITY,
                       "prepared for %s format %u on %s, this machine is %s (%s format %u): data prepared for %s; "
                       "run pte prepare again on the portable model",
                       pi->backend_id, pi->format_version, have, want, backend_id, format_version, what);
}

/* Fills the 128-byte envelope header for a payload of `payload_size` bytes (used by the
 * coordinator; exposed for tools and tests that build prepared files by hand).
 * Errors (PTE_ERR_INVALID_ARGUMENT): NULL header/backend_id, an id longer than 31 characters,
 * fingerprint longer than 32 bytes. */
static inline pte_status pte_prepared_envelope_header(uint8_t header[PTE_PREPARED_HEADER_SIZE], const char *backend_id,
                                                      uint32_t format_version, const void *fingerprint,
                                                      size_t fingerprint_size, uint64_t payload_size,
                                                      pte_error_info *err) {
  if (!header || !backend_id || strlen(backend_id) >= PTE_PREPARED_BACKEND_ID_BYTES)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "prepared envelope: backend id missing or longer than %u characters",
                         PTE_PREPARED_BACKEND_ID_BYTES - 1);
  if (fingerprint_size > PTE_PREPARED_FINGERPRINT_MAX || (!fingerprint && fingerprint_size))
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "prepared envelope: fingerprint of %zu bytes (at most %u)",
                         fingerprint_size, PTE_PREPARED_FINGERPRINT_MAX);
  memset(header, 0, PTE_PREPARED_HEADER_SIZE);
  memcpy(header, PTE_PREPARED_MAGIC, 4);
  pte_prepared_st32_(header + 4, PTE_PREPARED_ENVELOPE_VERSION);
  memcpy(header + 8, backend_id, strlen(backend_id));
  pte_prepared_st32_(header + 40, format_version);
  pte_prepared_st32_(header + 44, (uint32_t)fingerprint_size);
  if (fingerprint_size) memcpy(header + 48, fingerprint, fingerprint_size);
  pte_prepared_st64_(header + 80, PTE_PREPARED_HEADER_SIZE);
  pte_prepared_st64_(header + 88, payload_size);
  return PTE_OK;
}

/* ==== The backend hook's contexts ============================================================ */

/* "End of input": pte_next_backend_data has handed out every blob of this backend. (The value is
 * PTE_END_OF_METHOD, 0x03: a status, not an error.) */
#define PTE_PREPARE_END_OF_INPUT PTE_END_OF_METHOD

/* One stored delegate blob of the backend being prepared. Blobs are visited once each, even
 * when several delegates (possibly in several methods) share one stored blob; the method,
 * delegate index and compile specs are those of the first delegate using it. */
typedef struct pte_backend_data {
  uint32_t index;                 /* 0, 1, ... in visiting order: the handle for
                                     pte_replace_backend_data */
  const char *method_name;        /* first method using the blob */
  uint32_t delegate_index;        /* its index in that method's delegates */
  uint32_t n_delegates;           /* delegates (all methods) of this backend using this blob */
  const void *processed;          /* the processed blob; valid until the next
                                     pte_next_backend_data call or the hook's return */
  size_t processed_size;
  const pte_compile_spec *compile_specs; /* valid like `processed` */
  size_t n_compile_specs;
  bool inline_data;               /* stored in Program.backend_delegate_data (not a segment) */
} pte_backend_data;

/* A value handed to pte_write_named_data / pte_replace_backend_data: the PAYLOAD bytes (the
 * framework adds the envelope). The bytes are copied before the call returns. */
typedef struct pte_prepared_value {
  const void *data;
  size_t size;
} pte_prepared_value;

typedef struct pte_backend_data_context pte_backend_data_context;
typedef struct pte_backend_data_output pte_backend_data_output;

typedef struct pte_backend_data_context_vtable {
  pte_status (*next_backend_data)(pte_backend_data_context *ctx, pte_backend_data *out);
} pte_backend_data_context_vtable;

struct pte_backend_data_context {
  const pte_backend_data_context_vtable *vt;
  const char *backend_id;                   /* the id being prepared */
  const pte_named_data_map *named_data_map; /* the program's own named data (NULL if none) */
  pte_allocator *temp_allocator;            /* reset at every pte_next_backend_data call; may be
                                               NULL when the caller gave none */
  pte_event_tracer *event_tracer;           /* may be NULL */
  pte_error_info *err;                      /* a backend may explain a failure here; the framework
                                               writes its own messages here too */
  void *impl;                               /* private */
};

typedef struct pte_backend_data_output_vtable {
  pte_status (*set_envelope)(pte_backend_data_output *out, uint32_t format_version, const void *fingerprint,
                             size_t fingerprint_size);
  pte_status (*write_named_data)(pte_backend_data_output *out, const char *const *keys,
                                 const pte_prepared_value *values, size_t n);
  pte_status (*replace_backend_data)(pte_backend_data_output *out, uint32_t index, const void *data, size_t size);
} pte_backend_data_output_vtable;

struct pte_backend_data_output {
  const pte_backend_data_output_vtable *vt;
  void *impl; /* private */
};

/* Next blob of this backend. PTE_OK: *out filled (and the temp allocator reset; the previous
 * blob's buffer released). PTE_PREPARE_END_OF_INPUT: every blob was handed out. Errors: those of
 * the data loader (e.g. PTE_ERR_ACCESS_FAILED), PTE_ERR_INVALID_ARGUMENT (NULL argument). */
static inline pte_status pte_next_backend_data(pte_backend_data_context *ctx, pte_backend_data *out) {
  if (!ctx || !ctx->vt || !out) return PTE_ERR_INVALID_ARGUMENT;
  return ctx->vt->next_backend_data(ctx, out);
}

/* Declares what the replaced values are: the backend's data-format version and this device's
 * fingerprint (at most 32 bytes: ISA, tile sizes, driver...). Required once before any write; a
 * second call changes it for later writes. Errors: PTE_ERR_INVALID_ARGUMENT (fingerprint longer
 * than 32 bytes, backend id longer than 31 characters). */
static inline pte_status pte_backend_data_set_envelope(pte_backend_data_output *out, uint32_t format_version,
                                                       const void *fingerprint, size_t fingerprint_size) {
  if (!out || !out->vt) return PTE_ERR_INVALID_ARGUMENT;
  return out->vt->set_envelope(out, format_version, fingerprint, fingerprint_size);
}

/* Replaces the values of existing named-data keys (keys[i] -> values[i], i < n) with
 * envelope-wrapped copies of the payloads. All-or-nothing: every key is checked first.
 * Writing a key again replaces this backend's earlier value for it.
 * Errors (message in ctx->err): PTE_ERR_INVALID_ARGUMENT (a key the program does not have: prepare
 * can replace values, not add, remove or rename keys; a key already replaced by another backend;
 * NULL arguments), PTE_ERR_INVALID_STATE (pte_backend_data_set_envelope not called),
 * PTE_ERR_MEMORY_ALLOCATION_FAILED / PTE_ERR_ACCESS_FAILED (spooling the bytes failed). */
static inline pte_status pte_write_named_data(pte_backend_data_output *out, const char *const *keys,
                                              const pte_prepared_value *values, size_t n) {
  if (!out || !out->vt) return PTE_ERR_INVALID_ARGUMENT;
  return out->vt->write_named_data(out, keys, values, n);
}

/* Extension: replaces the processed blob `index` (pte_backend_data.index of a blob already handed
 * out by pte_next_backend_data) with an envelope-wrapped copy of data[0..size). Every delegate
 * of this backend using that blob sees the new bytes. Errors: PTE_ERR_INVALID_ARGUMENT (index not
 * handed out yet), PTE_ERR_INVALID_STATE (no envelope set), spooling errors as above. */
static inline pte_status pte_replace_backend_data(pte_backend_data_output *out, uint32_t index, const void *data,
                                                  size_t size) {
  if (!out || !out->vt) return PTE_ERR_INVALID_ARGUMENT;
  return out->vt->replace_backend_data(out, index, data, size);
}

#ifdef __cplusplus
}
#endif
#endif
