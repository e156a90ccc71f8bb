/* `pte inspect` of a .ptd (flat tensor data) and of a .bpte (bundled program) (inspect.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "inspect.h"
#include "pte/tensor.h"
#include "pte_gen/flat_tensor_gen.h"

/* ------------------------------------------------------------------ .ptd */
void inspect_describe_ptd(out *o, const pte_ptd *ptd) {
  const pte_flat_tensor_header *h = pte_ptd_header(ptd);
  pte_fb_table root = pte_fb_table_at(ptd->fb, ptd->fb_size, ptd->root);
  pte_fb_vec nd = pte_ft_FlatTensor_named_data(root);
  if (o->json) {
    jsonw *w = &o->w;
    jw_key(w, "header");
    jw_obj(w);
    jw_kuint(w, "header_length", h->header_length);
    jw_kuint(w, "flatbuffer_offset", h->flatbuffer_offset);
    jw_kuint(w, "flatbuffer_size", h->flatbuffer_size);
    jw_kuint(w, "segment_base_offset", h->segment_base_offset);
    jw_kuint(w, "segment_data_size", h->segment_data_size);
    jw_obj_end(w);
    jw_kuint(w, "schema_version", pte_ptd_version(ptd));
    jw_key(w, "segments");
    jw_arr(w);
    for (size_t i = 0; i < pte_ptd_num_segments(ptd); i++) {
      uint64_t off = 0, size = 0;
      pte_ptd_segment(ptd, i, &off, &size);
      jw_obj(w);
      jw_kuint(w, "offset", off);
      jw_kuint(w, "size", size);
      jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_key(w, "named_data");
    jw_arr(w);
  } else {
    fprintf(o->f, "header     FH01 (%u bytes): flatbuffer @%llu %llu B, segment_base %llu, segment_data %llu\n",
            h->header_length, (unsigned long long)h->flatbuffer_offset, (unsigned long long)h->flatbuffer_size,
            (unsigned long long)h->segment_base_offset, (unsigned long long)h->segment_data_size);
    fprintf(o->f, "schema     FT01 version %u, %zu segment(s), %u named entr%s\n", pte_ptd_version(ptd),
            pte_ptd_num_segments(ptd), nd.len, nd.len == 1 ? "y" : "ies");
  }
  for (uint32_t i = 0; i < nd.len; i++) {
    pte_fb_table e = pte_fb_vec_table(nd, i);
    pte_fb_str key = pte_ft_NamedData_key(e);
    uint32_t si = pte_ft_NamedData_segment_index(e);
    pte_fb_table lay = pte_ft_NamedData_tensor_layout(e);
    uint64_t off = 0, size = 0;
    pte_ptd_segment(ptd, si, &off, &size);
    pte_fb_vec sz = pte_ft_TensorLayout_sizes(lay), dord = pte_ft_TensorLayout_dim_order(lay);
    if (o->json) {
      jsonw *w = &o->w;
      jw_obj(w);
      jw_key(w, "key");
      inspect_put_fbstr(o, key);
      jw_kuint(w, "segment_index", si);
      jw_kuint(w, "size", size);
      if (pte_fb_table_present(lay)) {
        jw_kstr(w, "dtype", pte_dtype_name(pte_ft_TensorLayout_scalar_type(lay)));
        jw_kstr(w, "scalar_type", pte_dtype_upstream_name(pte_ft_TensorLayout_scalar_type(lay)));
        jw_key(w, "sizes");
        jw_arr(w);
        for (uint32_t k = 0; k < sz.len; k++) jw_int(w, pte_fb_vec_i32(sz, k));
        jw_arr_end(w);
        jw_key(w, "dim_order");
        jw_arr(w);
        for (uint32_t k = 0; k < dord.len; k++) jw_int(w, pte_fb_vec_u8(dord, k));
        jw_arr_end(w);
      }
      jw_obj_end(w);
    } else {
      fprintf(o->f, "  %-40.*s ", (int)key.len, key.ptr ? key.ptr : "");
      if (pte_fb_table_present(lay)) {
        fprintf(o->f, "%s[", pte_dtype_name(pte_ft_TensorLayout_scalar_type(lay)));
        for (uint32_t k = 0; k < sz.len; k++) fprintf(o->f, "%s%d", k ? ", " : "", pte_fb_vec_i32(sz, k));
        fprintf(o->f, "]");
      } else {
        fprintf(o->f, "opaque");
      }
      fprintf(o->f, "  segment %u @%llu, %llu B\n", si, (unsigned long long)off, (unsigned long long)size);
    }
  }
  if (o->json) jw_arr_end(&o->w);
}

/* ------------------------------------------------------------------ .bpte */
void inspect_describe_bundled(out *o, const pte_bundled_program *bp) {
  size_t n = pte_bundled_num_suites(bp);
  uint64_t off = 0, size = 0;
  pte_bundled_program_location(bp, &off, &size);
  if (o->json) {
    jsonw *w = &o->w;
    jw_key(w, "bundled");
    jw_obj(w);
    jw_kuint(w, "version", pte_bundled_program_version(bp));
    jw_kuint(w, "program_offset", off);
    jw_kuint(w, "program_size", size);
    jw_key(w, "test_suites");
    jw_arr(w);
  } else {
    fprintf(o->f, "bundled    BP08 version %u: program @%llu (%llu B), %zu test suite(s)\n",
            pte_bundled_program_version(bp), (unsigned long long)off, (unsigned long long)size, n);
  }
  for (size_t i = 0; i < n; i++) {
    pte_bundled_suite s;
    if (pte_bundled_get_suite(bp, i, &s) != PTE_OK) continue;
    size_t nin = 0, nout = 0;
    pte_bundled_case c;
    if (s.num_cases && pte_bundled_get_case(&s, 0, &c) == PTE_OK) {
      nin = c.num_inputs;
      nout = c.num_expected_outputs;
    }
    if (o->json) {
      jw_obj(&o->w);
      jw_kstr(&o->w, "method", s.method_name);
      jw_kuint(&o->w, "test_cases", s.num_cases);
      jw_kuint(&o->w, "inputs", nin);
      jw_kuint(&o->w, "expected_outputs", nout);
      jw_obj_end(&o->w);
    } else {
      fprintf(o->f, "  suite    %s: %zu case(s), %zu input(s), %zu expected output(s)\n", s.method_name, s.num_cases,
              nin, nout);
    }
  }
  if (o->json) {
    jw_arr_end(&o->w);
    jw_obj_end(&o->w);
  } else {
    fprintf(o->f, "\nembedded program:\n");
  }
}
