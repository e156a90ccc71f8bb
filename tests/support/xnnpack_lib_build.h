/* xnnpack_lib_build.h — graph-building helpers shared by xnnpack_lib_models.c and
 * xnnpack_lib_zoo.c (test/bench-only code). Errors stick in m->s; ids of failed adds are 0. */
#ifndef PTE_TESTS_XNNPACK_LIB_BUILD_H
#define PTE_TESTS_XNNPACK_LIB_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "pte/backend_xnnpack.h"

typedef struct pxm {
  pte_xnn_builder *b;
  uint32_t rng;
  pte_status s;
} pxm;

float pxm_rand(pxm *m); /* uniform in [-1, 1) */
uint32_t pxm_add(pxm *m, const pte_xnn_tensor_desc *t);
/* fp32 activation; ext < 0: internal, else external input (in) / output ext */
uint32_t pxm_f32(pxm *m, uint32_t rank, const uint32_t *dims, int ext, bool in);
/* fp32 constant of random values in [-scale, scale) */
uint32_t pxm_f32_const(pxm *m, uint32_t rank, const uint32_t *dims, float scale);
/* qint8 activation (per-tensor scale, zero point) */
uint32_t pxm_q8(pxm *m, uint32_t rank, const uint32_t *dims, float scale, int32_t zp);
void pxm_node(pxm *m, const pte_xnn_node_desc *n);
void pxm_conv_desc(pte_xnn_node_desc *n, unsigned type, uint32_t x, uint32_t w, uint32_t bias, uint32_t y, uint32_t kh,
                   uint32_t kw, uint32_t stride, const uint32_t pad[4], uint32_t groups, uint32_t gic, uint32_t goc);
/* one-input node type (ELU alpha 1, leaky slope 0.1, Clamp [-0.3, 0.7]) into a new fp32 value */
uint32_t pxm_un(pxm *m, unsigned type, uint32_t x, uint32_t rank, const uint32_t *dims, int ext);
/* two-input node type into a new fp32 value; ranged: fused output range [-1.5, 1.5] */
uint32_t pxm_bin(pxm *m, unsigned type, uint32_t a, uint32_t b, uint32_t rank, const uint32_t *dims, int ext,
                 bool ranged);
/* Convert x -> to; returns to */
uint32_t pxm_cvt(pxm *m, uint32_t x, uint32_t to);
/* Finishes the graph into *out (named constants) and frees the builder; a sticky error in m->s is
 * reported as "<what>: cannot build the graph (STATUS)". */
pte_status pxm_finish(pxm *m, pte_xnn_blob *out, pte_error_info *err, const char *what);
/* Convert q -> a new fp32 output ext */
void pxm_qout(pxm *m, uint32_t q, uint32_t rank, const uint32_t *dims, int ext);

#endif
