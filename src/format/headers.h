/* headers.h — internal include for the file headers (the API is public: pte/headers.h). */
#ifndef PTE_FORMAT_HEADERS_H
#define PTE_FORMAT_HEADERS_H

#include "pte/headers.h"

/* Field offsets relative to the header start (file offset PTE_HEADER_OFFSET). */
#define PTE_EH_OFF_LENGTH 4
#define PTE_EH_OFF_PROGRAM_SIZE 8
#define PTE_EH_OFF_SEGMENT_BASE 16
#define PTE_EH_OFF_SEGMENT_DATA_SIZE 24

#define PTE_FH_OFF_LENGTH 4
#define PTE_FH_OFF_FLATBUFFER_OFFSET 8
#define PTE_FH_OFF_FLATBUFFER_SIZE 16
#define PTE_FH_OFF_SEGMENT_BASE 24
#define PTE_FH_OFF_SEGMENT_DATA_SIZE 32

/* BundledProgram: root table field slot of `program: [ubyte] (force_align: 32)`. */
#define PTE_BP_SLOT_PROGRAM 2
#define PTE_BP_PROGRAM_ALIGN 32

#endif
