/* tools/cli/runner.h — loading and running methods for the CLI verbs (run, test).
 *
 * Files are opened behind one of the three loaders (mmap by default, file, or buffer: the whole
 * file read into 64-byte aligned heap memory). Method memory is heap: planned buffers exactly as
 * large as pte_method_meta says, a method allocator that grows (doubling, up to 1 GiB) when the
 * load reports it exhausted, and a temp allocator for kernel scratch.
 */
#ifndef PTE_TOOLS_RUNNER_H
#define PTE_TOOLS_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte/data_loader.h"
#include "pte/event_tracer.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/program.h"
#include "module/host.h"

typedef enum pte_cli_loader_kind {
  PTE_CLI_LOADER_MMAP = 0,
  PTE_CLI_LOADER_FILE = 1,
  PTE_CLI_LOADER_BUFFER = 2
} pte_cli_loader_kind;

/* "mmap" / "file" / "buffer" -> kind; false for anything else. */
bool pte_cli_parse_loader(const char *s, pte_cli_loader_kind *out);
const char *pte_cli_loader_name(pte_cli_loader_kind k);

/* An open file behind a data loader (src/module/host.h, shared with the Module API). Must not move
 * after open (the loader points into it). */
typedef pte_host_source pte_cli_source;

/* Opens `path` with the given loader. Errors: the loader's (ACCESS_FAILED with the reason). */
pte_status pte_cli_source_open(pte_cli_source *s, const char *path, pte_cli_loader_kind kind, pte_error_info *err);
const pte_data_loader *pte_cli_source_loader(const pte_cli_source *s);
void pte_cli_source_close(pte_cli_source *s);

/* Whole-file read into 64-byte aligned heap memory (NULL with errno on failure). */
uint8_t *pte_cli_read_file(const char *path, size_t *size);

/* Load options of the verbs that run methods (run, test): the resource limits --max-memory BYTES
 * (planned memory of a method; default half of physical memory), --verify minimal|full (program
 * verification; default full), --max-instructions N (per execute; default 0 = the runtime's
 * 10,000,000), and --threads N (backend thread pools). The C API's own defaults are unchanged:
 * these are the CLI's. */
typedef struct pte_cli_load_options {
  uint64_t max_memory;
  pte_verification verify;
  uint64_t max_instructions;
  int threads; /* --threads N: XnnpackBackend num_threads (0: the backend's default) */
  pte_event_tracer *tracer; /* set by the verb (run --profile), not an option */
} pte_cli_load_options;

void pte_cli_options_default(pte_cli_load_options *l);
/* Takes option `opt` with value `val` if it is one of the four: 1 taken, 0 not a limit option,
 * -1 bad value (why says what is wrong). */
int pte_cli_options_parse(pte_cli_load_options *l, const char *opt, const char *val, char *why, size_t why_cap);
/* True for the option names pte_cli_options_parse takes (they need a value). */
bool pte_cli_is_load_option(const char *opt);
/* Help lines for the three options. */
#define PTE_CLI_LOAD_OPTIONS_HELP                                                                               \
  "  --max-memory BYTES  refuse a method whose planned memory is larger (K/M/G/T suffixes, powers of\n"    \
  "                      1024; default: half of this machine's physical memory)\n"                         \
  "  --verify LEVEL      program verification: full (default; every table, index and size checked\n"     \
  "                      before use) or minimal (root offsets only; reads stay bounds-checked)\n"          \
  "  --max-instructions N  instructions per execute before giving up (default 10000000)\n"            \
  "  --threads N         threads of each XNNPACK delegate (1..64; default 1: the calling thread)\n"

/* "1G", "512M", "4096" -> bytes; false if malformed or overflowing. */
bool pte_cli_parse_bytes(const char *s, uint64_t *out);

/* Heap memory for one method (src/module/host.h, shared with the Module API). */
typedef pte_host_memory pte_cli_memory;

/* Allocates the planned buffers of `meta` (zeroed), a 16 KiB method allocator (grown on demand
 * by pte_cli_method_load) and a 16 MiB temp allocator. Errors: MEMORY_ALLOCATION_FAILED (heap),
 * errors of the meta queries. */
/* Refuses (PTE_ERR_OUT_OF_RESOURCES, before allocating anything) a method whose planned buffers
 * add up to more than lim->max_memory, naming both numbers and the option that raises the limit. */
pte_status pte_cli_memory_init(pte_cli_memory *mem, const pte_method_meta *meta, const pte_cli_load_options *lim,
                               pte_error_info *err);
void pte_cli_memory_free(pte_cli_memory *mem);

/* Loads method `name` into mem (resetting the method allocator first). When the load reports the
 * method allocator exhausted, doubles it and tries again (up to 1 GiB). *ms (may be NULL) receives
 * the duration of the successful attempt in milliseconds. */
pte_status pte_cli_method_load(pte_cli_memory *mem, const pte_program *p, const char *name,
                               const pte_named_data_map *ext, const pte_cli_load_options *lim, pte_method **out, double *ms,
                               pte_error_info *err);

/* Gives every unplanned tensor output a heap buffer of its declared size (kept in mem, reused
 * across loads). */
pte_status pte_cli_bind_outputs(pte_cli_memory *mem, pte_method *m, pte_error_info *err);

/* Monotonic clock in milliseconds. */
double pte_cli_now_ms(void);

/* Element i of a tensor's data as a double (0 for dtypes without a numeric reading). */
double pte_cli_elem_double(int dtype, const void *data, size_t i);
bool pte_cli_dtype_is_float(int dtype);
bool pte_cli_dtype_is_complex(int dtype);

/* Copies tensor t into dst (t->numel * element size bytes) in C (contiguous) order. */
void pte_cli_tensor_to_contiguous(const pte_tensor *t, void *dst);

/* Copies contiguous (C-order) data of `sizes` into the layout described by dim_order. */
void pte_cli_contiguous_to_layout(void *dst, const void *src, const int32_t *sizes, const uint8_t *dim_order,
                                  int32_t dim, size_t es);

/* Lists the fully-qualified names of the EXTERNAL tensors of method `name` into buf
 * ("a, b"), returning how many there are. */
size_t pte_cli_external_keys(const pte_program *p, const char *name, char *buf, size_t cap);

/* Registers the portable kernels and the XNNPACK backend ("XnnpackBackend"). */
pte_status pte_cli_register_all(pte_error_info *err);
/* True when this build has a kernel for operator `name` ("aten::add.out"): a registered kernel
 * (any dtype key) or a primitive op. Call after pte_cli_register_all. */
bool pte_cli_op_available(const char *name);

#endif
