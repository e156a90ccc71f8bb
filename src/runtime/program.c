/* program.c — loading, verifying and querying a .pte program (core: no allocation, no stdio).
 *
 * Load path (upstream Program::load semantics, see pte/program.h for the differences):
 *   head (64 bytes) -> eh00 header -> flatbuffer region [0, program_size) -> identifier ->
 *   verification (root offset, or full structure + semantic validation) -> named data map ->
 *   constant segment.
 * Every flatbuffer read goes through the bounds-checked reader, so even a program loaded with
 * PTE_VERIFY_MINIMAL cannot make pte read outside the buffer. Semantic validation lives in
 * program_validate.c, the in-file named data map in program_data_map.c, the checks shared with the
 * .ptd and bundled-program readers in prog_checks.c.
 */
#include <stdint.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte/headers.h"
#include "pte/program.h"
#include "pte/tensor.h"
#include "pte_gen/program_gen.h"
#include "runtime/prog_internal.h"

/* ================================================================== load */

static pte_status fail_free(pte_program *p, pte_status s) {
  pte_freeable_buffer_free(&p->constant_segment);
  pte_freeable_buffer_free(&p->program_data);
  memset(p, 0, sizeof *p);
  return s;
}

pte_status pte_program_load(const pte_data_loader *loader, pte_verification verification, pte_program *program,
                            pte_error_info *err) {
  return pte_program_load_with_limits(loader, verification, NULL, program, err);
}

pte_status pte_program_load_with_limits(const pte_data_loader *loader, pte_verification verification,
                                        const pte_program_limits *limits, pte_program *program,
                                        pte_error_info *err) {
  if (!program) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "program load: NULL program");
  memset(program, 0, sizeof *program);
  if (!loader || !loader->vt) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "program load: NULL loader");
  if (verification != PTE_VERIFY_MINIMAL && verification != PTE_VERIFY_INTERNAL_CONSISTENCY)
    return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "program load: unknown verification level %d",
                         (int)verification);
  pte_program *p = program;
  p->loader = loader;

  /* 1. Size, limits, head bytes and the extended header. */
  uint64_t file_size = 0;
  pte_status s = pte_data_loader_size(loader, &file_size);
  if (s != PTE_OK) return fail_free(p, pte_error_set(err, s, "program load: cannot get the data size"));
  p->file_size = file_size;
  if (limits && limits->max_file_size && file_size > limits->max_file_size)
    return fail_free(p, pte_error_set(err, PTE_ERR_OUT_OF_RESOURCES, "program file is %llu bytes, over the limit of %llu",
                                      pte_rt_ull(file_size), pte_rt_ull(limits->max_file_size)));
  if (file_size < PTE_HEAD_BYTES)
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                      "program file is %llu bytes, too small (at least %d needed); file may be truncated",
                                      pte_rt_ull(file_size), PTE_HEAD_BYTES));
  pte_segment_info prog_info = {PTE_SEGMENT_PROGRAM, 0, NULL};
  pte_freeable_buffer head;
  s = pte_data_loader_load(loader, 0, PTE_HEAD_BYTES, &prog_info, &head);
  if (s != PTE_OK) return fail_free(p, pte_error_set(err, s, "program load: cannot load the first %d bytes", PTE_HEAD_BYTES));
  if (!head.data || head.size < PTE_HEAD_BYTES) {
    pte_freeable_buffer_free(&head);
    return fail_free(p, pte_error_set(err, PTE_ERR_ACCESS_FAILED, "program load: loader returned a short head"));
  }
  pte_extended_header eh;
  s = pte_extended_header_parse(head.data, head.size, &eh, err);
  pte_freeable_buffer_free(&head);
  uint64_t program_size;
  if (s == PTE_OK) {
    s = pte_extended_header_validate(&eh, file_size, err);
    if (s != PTE_OK) return fail_free(p, s);
    p->header.present = true;
    p->header.header_length = eh.header_length;
    p->header.program_size = eh.program_size;
    p->header.segment_base_offset = eh.segment_base_offset;
    p->header.segment_data_size = eh.segment_data_size;
    program_size = eh.program_size;
  } else if (s == PTE_ERR_NOT_FOUND) {
    program_size = file_size;
    p->header.program_size = file_size;
  } else {
    return fail_free(p, s);
  }
  if (program_size < 8)
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "program_size %llu is too small for a flatbuffer",
                                      pte_rt_ull(program_size)));
  if (program_size > 0x7FFFFFFFull || program_size > (uint64_t)SIZE_MAX)
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                      "program flatbuffer of %llu bytes exceeds the 2 GiB FlatBuffers limit",
                                      pte_rt_ull(program_size)));

  /* 2. The flatbuffer region. */
  s = pte_data_loader_load(loader, 0, (size_t)program_size, &prog_info, &p->program_data);
  if (s != PTE_OK)
    return fail_free(p, pte_error_set(err, s, "program load: cannot load the program data (%llu bytes)",
                                      pte_rt_ull(program_size)));
  if (!p->program_data.data || p->program_data.size < (size_t)program_size)
    return fail_free(p, pte_error_set(err, PTE_ERR_ACCESS_FAILED, "program load: loader returned a short buffer"));
  p->fb = (const uint8_t *)p->program_data.data;
  p->fb_size = (size_t)program_size;
  if ((uintptr_t)p->fb % PTE_RT_BUFFER_ALIGN != 0)
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "program data at 0x%llx must be aligned to %d bytes",
                                      pte_rt_ull((uint64_t)(uintptr_t)p->fb), PTE_RT_BUFFER_ALIGN));
  if (memcmp(p->fb + 4, "ET12", 4) != 0) {
    char id[5];
    pte_rt_ident(p->fb + 4, id);
    if (p->fb[4] == 'E' && p->fb[5] == 'T')
      return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                        "program identifier '%s' is an incompatible version (expected 'ET12')", id));
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                      "not a program: identifier '%s' != expected 'ET12'", id));
  }

  /* 3. Verification. */
  uint32_t root = pte_fb_ld_u32(p->fb);
  if (root < 8 || (uint64_t)root > (uint64_t)p->fb_size - 4)
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                      "root table offset %u out of range [8, %llu]; data may be truncated or corrupt",
                                      root, pte_rt_ull(p->fb_size - 4)));
  p->root = root;
  if (verification == PTE_VERIFY_INTERNAL_CONSISTENCY) {
    s = pte_et_verify_root(p->fb, p->fb_size, err);
    if (s != PTE_OK) return fail_free(p, pte_rt_remap(s, PTE_ERR_INVALID_PROGRAM, err));
  }
  pte_fb_table rt = pte_fb_table_at(p->fb, p->fb_size, root);
  if (!pte_fb_table_present(rt))
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "root table at %u is malformed", root));

  pte_fb_vec segments = pte_et_Program_segments(rt);
  uint32_t n_segments = segments.present ? segments.len : 0;
  pte_fb_vec constant_buffer = pte_et_Program_constant_buffer(rt);

  /* 4. Named data needs a segment table. */
  pte_fb_vec named = pte_et_Program_named_data(rt);
  if (named.present && !segments.present)
    return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_ARGUMENT,
                                      "program has named_data (%u entries) but no segments", named.len));

  /* 5. Where the constants live. */
  pte_fb_table cs = pte_et_Program_constant_segment(rt);
  pte_fb_vec cs_offsets = pte_et_SubsegmentOffsets_offsets(cs);
  uint32_t cb_len = constant_buffer.present ? constant_buffer.len : 0;
  uint64_t cs_off = 0, cs_size = 0;
  if (cs_offsets.present && cs_offsets.len > 1) {
    if (cb_len > 0)
      return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                        "constants stored both inline (constant_buffer has %u entries) and in a "
                                        "segment (constant_segment has %u offsets); only one should be used",
                                        cb_len, cs_offsets.len));
    if (!segments.present)
      return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                        "constant_segment is used but the program has no segments"));
    uint32_t si = pte_et_SubsegmentOffsets_segment_index(cs);
    if (si >= n_segments)
      return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                        "constant segment index %u out of range (%u segments)", si, n_segments));
    pte_rt_seg_get(pte_fb_vec_table(segments, si), &cs_off, &cs_size);
    if (cs_size > 0 && p->header.segment_base_offset == 0)
      return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                                        "constant segment %u has %llu bytes but the file has no segment data", si,
                                        pte_rt_ull(cs_size)));
    if (cs_off > UINT64_MAX - p->header.segment_base_offset || cs_size > (uint64_t)SIZE_MAX)
      return fail_free(p, pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "constant segment %u offset/size overflow", si));
    p->constant_storage = PTE_CONSTANTS_SEGMENT;
    p->constant_segment_index = si;
  } else if (cb_len > 0) {
    p->constant_storage = PTE_CONSTANTS_INLINE;
  } else {
    p->constant_storage = PTE_CONSTANTS_NONE;
  }

  /* 6. Semantic validation. */
  if (verification == PTE_VERIFY_INTERNAL_CONSISTENCY) {
    s = pte_rt_validate_program(p, err);
    if (s != PTE_OK) return fail_free(p, s);
  }

  /* 7. Named data map and constant segment. */
  if (named.present) {
    p->has_named_data = true;
    /* keys in byte order (pte's writer emits them so): lookups by binary search */
    p->named_data_sorted = pte_rt_keys_sorted(named, pte_et_NamedData_key_SLOT);
    p->named_data.base.vt = &pte_rt_program_data_map_vt;
    p->named_data.program = p;
  }
  if (p->constant_storage == PTE_CONSTANTS_SEGMENT && cs_size > 0) {
    pte_segment_info ci = {PTE_SEGMENT_CONSTANT, p->constant_segment_index, NULL};
    s = pte_data_loader_load(loader, p->header.segment_base_offset + cs_off, (size_t)cs_size, &ci, &p->constant_segment);
    if (s != PTE_OK)
      return fail_free(p, pte_error_set(err, s, "cannot load constant segment %u (offset %llu, %llu bytes)",
                                        p->constant_segment_index, pte_rt_ull(p->header.segment_base_offset + cs_off),
                                        pte_rt_ull(cs_size)));
    if (p->constant_segment.size < (size_t)cs_size || !p->constant_segment.data)
      return fail_free(p, pte_error_set(err, PTE_ERR_ACCESS_FAILED, "loader returned a short constant segment"));
  }
  if (err) {
    err->status = PTE_OK;
    err->msg[0] = 0;
  }
  return PTE_OK;
}

void pte_program_destroy(pte_program *program) {
  if (!program) return;
  pte_freeable_buffer_free(&program->constant_segment);
  pte_freeable_buffer_free(&program->program_data);
  memset(program, 0, sizeof *program);
}

/* ================================================================== queries */

static pte_fb_vec plans_of(const pte_program *p) {
  if (!p || !p->fb) {
    pte_fb_vec v;
    memset(&v, 0, sizeof v);
    return v;
  }
  return pte_et_Program_execution_plan(pte_rt_program_root(p));
}

size_t pte_program_num_methods(const pte_program *program) {
  pte_fb_vec v = plans_of(program);
  return v.present ? v.len : 0;
}

const char *pte_program_method_name(const pte_program *program, size_t i) {
  pte_fb_vec v = plans_of(program);
  if (!v.present || i >= v.len) return NULL;
  return pte_et_ExecutionPlan_name(pte_fb_vec_table(v, (uint32_t)i)).ptr;
}

pte_status pte_program_find_method(const pte_program *program, const char *name, size_t *index) {
  if (!name) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec v = plans_of(program);
  size_t n = strlen(name);
  for (uint32_t i = 0; v.present && i < v.len; i++) {
    pte_fb_str s = pte_et_ExecutionPlan_name(pte_fb_vec_table(v, i));
    if (s.ptr && s.len == n && memcmp(s.ptr, name, n) == 0) {
      if (index) *index = i;
      return PTE_OK;
    }
  }
  return PTE_ERR_INVALID_ARGUMENT;
}

const pte_program_header *pte_program_get_header(const pte_program *program) {
  return program ? &program->header : NULL;
}

pte_constant_storage pte_program_constant_storage(const pte_program *program) {
  return program ? (pte_constant_storage)program->constant_storage : PTE_CONSTANTS_NONE;
}

static const uint8_t pte_empty_constant[1] = {0};

pte_status pte_program_constant_data(const pte_program *program, size_t idx, size_t nbytes, const void **out) {
  if (!program || !program->fb || !out) return PTE_ERR_INVALID_ARGUMENT;
  *out = NULL;
  pte_fb_table rt = pte_rt_program_root(program);
  if (program->constant_storage == PTE_CONSTANTS_SEGMENT) {
    pte_fb_vec offs = pte_et_SubsegmentOffsets_offsets(pte_et_Program_constant_segment(rt));
    if (!offs.present || idx >= offs.len) return PTE_ERR_INVALID_ARGUMENT;
    uint64_t off = pte_fb_vec_u64(offs, (uint32_t)idx);
    size_t size = program->constant_segment.size;
    if (off > size || nbytes > size - off) return PTE_ERR_INVALID_ARGUMENT;
    *out = program->constant_segment.data ? (const uint8_t *)program->constant_segment.data + off
                                          : pte_empty_constant;
    return PTE_OK;
  }
  if (program->constant_storage == PTE_CONSTANTS_INLINE) {
    pte_fb_vec cb = pte_et_Program_constant_buffer(rt);
    if (!cb.present || idx >= cb.len) return PTE_ERR_INVALID_ARGUMENT;
    pte_fb_vec st = pte_et_Buffer_storage(pte_fb_vec_table(cb, (uint32_t)idx));
    if ((uint64_t)st.len < (uint64_t)nbytes || (st.present && !pte_rt_vec_fits(st, 1)))
      return PTE_ERR_INVALID_ARGUMENT;
    *out = st.present ? (const void *)pte_fb_vec_data(st) : (const void *)pte_empty_constant;
    return PTE_OK;
  }
  return PTE_ERR_INVALID_ARGUMENT;
}

size_t pte_program_num_segments(const pte_program *program) {
  if (!program || !program->fb) return 0;
  pte_fb_vec v = pte_et_Program_segments(pte_rt_program_root(program));
  return v.present ? v.len : 0;
}

pte_status pte_program_segment(const pte_program *program, size_t i, uint64_t *offset, uint64_t *size) {
  if (!program || !program->fb) return PTE_ERR_INVALID_ARGUMENT;
  pte_fb_vec v = pte_et_Program_segments(pte_rt_program_root(program));
  if (!v.present || i >= v.len) return PTE_ERR_NOT_FOUND;
  pte_fb_table t = pte_fb_vec_table(v, (uint32_t)i);
  if (!pte_fb_table_present(t)) return PTE_ERR_INVALID_PROGRAM;
  uint64_t o, s;
  pte_rt_seg_get(t, &o, &s);
  if (offset) *offset = o;
  if (size) *size = s;
  return PTE_OK;
}

pte_status pte_program_load_segment(const pte_program *program, size_t i, const pte_segment_info *info,
                                    pte_freeable_buffer *out) {
  if (!program || !program->fb || !out) return PTE_ERR_INVALID_ARGUMENT;
  *out = pte_freeable_buffer_view(NULL, 0);
  uint64_t base = program->header.segment_base_offset;
  if (!program->loader || base == 0) return PTE_ERR_NOT_FOUND;
  uint64_t off, size;
  pte_status s = pte_program_segment(program, i, &off, &size);
  if (s != PTE_OK) return s;
  if (off > UINT64_MAX - base || size > (uint64_t)SIZE_MAX || size > UINT64_MAX - (base + off))
    return PTE_ERR_INVALID_PROGRAM;
  pte_segment_info def = {PTE_SEGMENT_BACKEND, i, NULL};
  return pte_data_loader_load(program->loader, base + off, (size_t)size, info ? info : &def, out);
}

pte_status pte_program_load_mutable_into(const pte_program *program, size_t msi, size_t offset_index, size_t size,
                                         void *dst) {
  if (!program || !program->fb || (!dst && size)) return PTE_ERR_INVALID_ARGUMENT;
  uint64_t base = program->header.segment_base_offset;
  if (!program->loader || base == 0) return PTE_ERR_NOT_FOUND;
  pte_fb_table rt = pte_rt_program_root(program);
  pte_fb_vec ms = pte_et_Program_mutable_data_segments(rt);
  if (!ms.present || msi >= ms.len) return PTE_ERR_NOT_FOUND;
  pte_fb_table ss = pte_fb_vec_table(ms, (uint32_t)msi);
  pte_fb_vec offs = pte_et_SubsegmentOffsets_offsets(ss);
  if (!offs.present || offset_index >= offs.len) return PTE_ERR_NOT_FOUND;
  uint64_t off = pte_fb_vec_u64(offs, (uint32_t)offset_index);
  uint32_t si = pte_et_SubsegmentOffsets_segment_index(ss);
  uint64_t soff, ssize;
  pte_status s = pte_program_segment(program, si, &soff, &ssize);
  if (s != PTE_OK) return s;
  if (off > ssize || (uint64_t)size > ssize - off) return PTE_ERR_INVALID_ARGUMENT;
  if (soff > UINT64_MAX - base || off > UINT64_MAX - (base + soff)) return PTE_ERR_INVALID_PROGRAM;
  pte_segment_info info = {PTE_SEGMENT_MUTABLE, si, NULL};
  return pte_data_loader_load_into(program->loader, base + soff + off, size, &info, dst);
}

const pte_named_data_map *pte_program_named_data_map(const pte_program *program) {
  if (!program || !program->has_named_data) return NULL;
  return &program->named_data.base;
}

const uint8_t *pte_program_flatbuffer(const pte_program *program, size_t *size) {
  if (size) *size = program ? program->fb_size : 0;
  return program ? program->fb : NULL;
}

uint32_t pte_program_root(const pte_program *program) { return (program && program->fb) ? program->root : 0; }
