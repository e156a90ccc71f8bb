/* pte/pte.h — every public header of pte in one include.
 *
 *   #include "pte/pte.h"
 *
 * Host programs usually need only pte/module.h (open a file, set inputs, forward, outputs); the
 * other headers are the low-level API for embedded use (caller-provided memory, no heap), the
 * kernel libraries and backends, the writer and prepare. Each header is also self-contained.
 */
#ifndef PTE_PTE_H
#define PTE_PTE_H

#include "pte/status.h"
#include "pte/tensor.h"
#include "pte/evalue.h"
#include "pte/allocator.h"
#include "pte/memory.h"
#include "pte/freeable_buffer.h"
#include "pte/data_loader.h"
#include "pte/io.h"
#include "pte/headers.h"
#include "pte/named_data_map.h"
#include "pte/program.h"
#include "pte/ptd.h"
#include "pte/event_tracer.h"
#include "pte/kernel.h"
#include "pte/backend.h"
#include "pte/method.h"
#include "pte/bundled.h"
#include "pte/portable_kernels.h"
#include "pte/quantized_kernels.h"
#include "pte/cortex_m_kernels.h"
#include "pte/custom_kernels.h"
#include "pte/llm_kernels.h"
#include "pte/backend_xnnpack.h"
#include "pte/data_writer.h"
#include "pte/writer.h"
#include "pte/prepare_backend.h"
#include "pte/prepare.h"
#include "pte/module.h"

#endif
