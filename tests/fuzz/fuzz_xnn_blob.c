#define _POSIX_C_SOURCE 200809L
/* libFuzzer target: the XNNPACK delegate blob parser and compiler (pte_xnn_parse_header,
 * pte_xnn_delegate_init) on raw blobs. Two input shapes:
 *   - a raw blob ("XH00" header + XNNGraph flatbuffer + constants, or a bare flatbuffer):
 *     compiled without a named-data map;
 *   - a .pte ("ET12" at byte 4): every segment of the program is compiled as a blob with the
 *     program's own named data map (so named constants resolve), as the backend does at load.
 * A compiled delegate is executed once with FLOAT tensors of a guessed shape (most are refused
 * by argument validation: that path must be safe too), then destroyed. Method-level execution of
 * delegated programs with the declared input shapes is fuzz_method's job. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "pte/backend_xnnpack.h"
#include "pte/data_loader.h"
#include "pte/program.h"

static void try_blob(const uint8_t *blob, size_t size, const pte_named_data_map *ndm) {
  pte_xnn_header h;
  pte_error_info err;
  (void)pte_xnn_parse_header(blob, size, &h, &err);
  pte_xnnpack_options o = {1, PTE_XNN_ISA_AUTO};
  pte_xnn_delegate *d = NULL;
  if (pte_xnn_delegate_init(blob, size, ndm, &o, &d, &err) != PTE_OK) return;
  (void)pte_xnn_delegate_num_inputs(d);
  (void)pte_xnn_delegate_num_outputs(d);
  (void)pte_xnn_delegate_isa(d);
  (void)pte_xnn_delegate_threads(d);
  (void)pte_xnn_delegate_packed_bytes(d);
  (void)pte_xnn_delegate_arena_bytes(d);
  size_t nargs = pte_xnn_delegate_num_args(d);
  if (nargs > 0 && nargs <= 16) {
    pte_evalue ev[16], *args[16];
    pte_tensor t[16];
    int32_t sizes[16][2], strides[16][2];
    static const uint8_t order[2] = {0, 1};
    float *data[16];
    for (size_t i = 0; i < nargs; i++) {
      sizes[i][0] = 1;
      sizes[i][1] = 8;
      strides[i][0] = 8;
      strides[i][1] = 1;
      data[i] = (float *)calloc(64, sizeof(float));
      memset(&t[i], 0, sizeof t[i]);
      t[i].data = data[i];
      t[i].sizes = sizes[i];
      t[i].strides = strides[i];
      t[i].dim_order = order;
      t[i].dim = 2;
      t[i].dtype = PTE_DTYPE_FLOAT;
      t[i].dynamism = PTE_SHAPE_DYNAMIC_BOUND;
      t[i].numel = 8;
      t[i].capacity_bytes = 64 * sizeof(float);
      ev[i].tag = PTE_TAG_TENSOR;
      ev[i].u.tensor = &t[i];
      args[i] = &ev[i];
    }
    (void)pte_xnn_delegate_execute(d, args, nargs, &err);
    for (size_t i = 0; i < nargs; i++) free(data[i]);
  }
  pte_xnn_delegate_destroy(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *buf = fz_aligned_copy(data, size);
  if (!buf) return 0;
  if (size >= 8 && memcmp(buf + 4, "ET12", 4) == 0) {
    pte_buffer_loader bl;
    pte_buffer_loader_init(&bl, buf, size);
    pte_program p;
    if (pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, NULL) == PTE_OK) {
      for (size_t i = 0; i < pte_program_num_segments(&p) && i < 8; i++) {
        pte_freeable_buffer seg;
        if (pte_program_load_segment(&p, i, NULL, &seg) != PTE_OK) continue;
        /* exact-size copy so ASan sees reads past the blob */
        uint8_t *blob = fz_aligned_copy((const uint8_t *)seg.data, seg.size);
        if (blob) try_blob(blob, seg.size, pte_program_named_data_map(&p));
        free(blob);
        pte_freeable_buffer_free(&seg);
      }
      pte_program_destroy(&p);
    }
  } else {
    try_blob(buf, size, NULL);
  }
  free(buf);
  return 0;
}
