/* xnnpack_lib_models.h — XNNPACK delegate graphs generated with pte's blob builder for the
 * libXNNPACK comparison test and bench (tests/unit/test_xnnpack_libxnnpack.c,
 * bench/xnnpack_models.c). Weights come from a fixed-seed generator (values only matter for
 * keeping activations in a sane range). Constants are named data (as current exporters store
 * them): run a blob with pte_xnn_blob_data_map_init.
 */
#ifndef PTE_TESTS_XNNPACK_LIB_MODELS_H
#define PTE_TESTS_XNNPACK_LIB_MODELS_H

#include <stdint.h>

#include "pte/backend_xnnpack.h"

/* A YOLO-like fp32 CNN on an NHWC image [1, image, image, 3] (external id 0): stem 3x3/2 conv,
 * depthwise-separable blocks (3x3 depthwise + 1x1 conv), every activation SiLU as
 * x * sigmoid(x) (Sigmoid + Multiply nodes), a neck that upsamples the 1/16 feature map
 * (StaticResizeBilinear2D x2) and concatenates it with the 1/8 one (Concatenate2 on channels),
 * two 1x1 detection heads: outputs id 1 [1, image/8, image/8, 27] and id 2 [1, image/16,
 * image/16, 27]. image must be a multiple of 16. */
pte_status pxm_build_yolo(uint32_t image, pte_xnn_blob *out, pte_error_info *err);

/* An int8 keyword-spotting DS-CNN: fp32 MFCC input [1, 49, 10, 1] (id 0) -> Convert to qint8 ->
 * Conv2d 10x4 stride 2 (64 ch, per-channel qcint8 weights, qcint32 bias, ReLU) -> 4 x
 * (depthwise 3x3 + pointwise 1x1, ReLU) -> global average pooling -> reshape -> FullyConnected
 * (qint8 weights) 12 classes -> Convert to fp32 output [1, 12] (id 1). */
pte_status pxm_build_kws(pte_xnn_blob *out, pte_error_info *err);
/* The same network with dynamically quantized activations (qd8, as the exporter lowers dynamic
 * int8): every conv / FullyConnected reads a Convert fp32 -> qdint8 of its input, has qcint8
 * weights and fp32 bias and output (ReLU as the fused range). The library snapshot has no
 * qdint8 (the translator reports it). */
pte_status pxm_build_kws_qd8(pte_xnn_blob *out, pte_error_info *err);

/* Many node kinds the library snapshot has (plus the host-run Transpose/Slice), fp32: inputs
 * x, y [1, 6, 10, 16] (ids 0, 1); outputs ids 2..15, each combining one or two node kinds:
 * binary ops with broadcasting (per-channel and rank-1 constants) and fused ranges, unary ops
 * (abs, negate, square, sqrt, floor, ceiling, hardswish, ELU, leaky ReLU, clamp, sigmoid),
 * softmax, PReLU, constant pad, max/avg pooling, slice, global average pooling + reshape +
 * FullyConnected with transposed weights, depthwise 5x5 stride 2, grouped conv, bilinear resize
 * with align_corners, transpose. */
pte_status pxm_build_zoo(pte_xnn_blob *out, pte_error_info *err);

/* Static int8 (qint8) node kinds, each alone between Converts so an output differs from the
 * library's by rounding only: inputs x, y fp32 [1, 6, 10, 16] (ids 0, 1) converted to qint8
 * with different scales and zero points; outputs (fp32, ids 2..) of Add, Subtract, Multiply
 * (requantizing), Clamp, Sigmoid, ELU, max pooling, global average pooling, bilinear resize, constant pad. */
pte_status pxm_build_qzoo(pte_xnn_blob *out, pte_error_info *err);

/* Writes `blob` as a .pte (through pte's writer): method "forward" = one DelegateCall of an
 * XnnpackBackend lowered module (blob in a segment, its named constants in Program.named_data,
 * alignment 16); method inputs/outputs = the graph's external inputs/outputs in external id
 * order (fp32 only), memory planned. */
pte_status pxm_write_pte(const pte_xnn_blob *blob, const char *path, pte_error_info *err);

/* Input [1, 8] -> FullyConnected 8 -> Tanh -> output: a node the library snapshot lacks. */
pte_status pxm_build_tanh(pte_xnn_blob *out, pte_error_info *err);

#endif
