# pte top-level Makefile: thin wrapper over CMake.
BUILD      ?= build
BUILD_ASAN ?= build-asan
BUILD_TSAN ?= build-tsan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE      ?= cmake
CTEST      ?= ctest
BUILD_TYPE ?= RelWithDebInfo
PREFIX     ?= /usr/local
BUILD_FOOTPRINT ?= build-footprint
BUILD_MCU  ?= build-mcu

.PHONY: amalgamation regen-schema all test test-asan test-tsan valgrind demo bench fuzz fuzz-long clean install footprint
.PHONY: mcu footprint-mcu

# Quiet by default: one line, the build log shown only on failure (V=1 shows everything).
V ?= 0
ifeq ($(V),0)
  BUILD_CMD = echo "building into $(BUILD)/ ($(BUILD_TYPE); log: $(BUILD)/build.log)"; \
    $(CMAKE) --build $(BUILD) -j $(JOBS) -- --no-print-directory >$(BUILD)/build.log 2>&1 || \
    { grep -E "error|warning|Error" $(BUILD)/build.log | head -60; echo "build failed: see $(BUILD)/build.log"; exit 1; }
else
  BUILD_CMD = $(CMAKE) --build $(BUILD) -j $(JOBS)
endif

all: configure
	@$(BUILD_CMD)

# (Re)configures when CMakeLists.txt changed or BUILD_TYPE differs from the cached build type.
.PHONY: configure
configure:
	@if [ ! -f $(BUILD)/Makefile ] || [ CMakeLists.txt -nt $(BUILD)/Makefile ] || \
	   ! grep -q "^CMAKE_BUILD_TYPE:STRING=$(BUILD_TYPE)$$" $(BUILD)/CMakeCache.txt 2>/dev/null; then \
	  $(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) >/dev/null || exit 1; \
	fi

$(BUILD)/Makefile: configure

test: all
	@cd $(BUILD) && $(CTEST) --output-on-failure -j $(JOBS)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan:
	@$(CMAKE) -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DPTE_SANITIZE=address,undefined >/dev/null
	@$(CMAKE) --build $(BUILD_ASAN) -j $(JOBS)
	@cd $(BUILD_ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		$(CTEST) --output-on-failure -j $(JOBS)

# The threading tests under ThreadSanitizer (docs/robustness.md).
test-tsan:
	@$(CMAKE) -S . -B $(BUILD_TSAN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTE_SANITIZE=thread >/dev/null
	@$(CMAKE) --build $(BUILD_TSAN) -j $(JOBS) --target test_concurrency test_xnnpack_threadpool
	@cd $(BUILD_TSAN) && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
		$(CTEST) --output-on-failure -R '^(test_concurrency|test_xnnpack_threadpool)$$'

# Valgrind memcheck over `pte run` on every corpus program.
valgrind: all
	@sh tests/valgrind/run_corpus.sh $(BUILD)

# Builds only what the demo runs (the pte CLI; build log shown on failure), then tools/demo.sh.
demo: configure
	@echo "building the pte CLI into $(BUILD) ($(BUILD_TYPE))..."
	@$(CMAKE) --build $(BUILD) -j $(JOBS) --target pte_cli >$(BUILD)/demo-build.log 2>&1 || { cat $(BUILD)/demo-build.log; exit 1; }
	@sh tools/demo.sh $(BUILD)

# The core runtime as one translation unit for embedded builds: $(BUILD)/amalgamation/pte.h, pte.c
# and pte_kernels.c (the portable kernels); tools/amalgamate.py, README "Embedded".
amalgamation:
	@python3 tools/amalgamate.py --out $(BUILD)/amalgamation

bench: all
	@sh bench/run.sh $(BUILD)

FUZZ_SECONDS ?= 30
FUZZ_TARGETS ?=
fuzz:
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Long fuzzing sessions, one target at a time (tests/fuzz/long_run.sh; results in build-fuzz/long-run).
FUZZ_LONG_SECONDS ?= 1800
fuzz-long:
	@sh tests/fuzz/long_run.sh $(FUZZ_LONG_SECONDS)

# Headers, libpte.a + libpte.so, libpte_core.a, the pte CLI, the CMake package (find_package(pte))
# and pte.pc into $(PREFIX) (DESTDIR is honoured). Examples: examples/README.md.
install: all
	@$(CMAKE) --install $(BUILD) --prefix $(PREFIX)

# The core runtime alone (PTE_CORE_ONLY, -Os): .text per object, linked size, no-malloc/stdio check
# and the 48 KiB budget (docs/footprint.md).
footprint:
	@$(CMAKE) -S . -B $(BUILD_FOOTPRINT) -DPTE_CORE_ONLY=ON -DCMAKE_BUILD_TYPE=MinSizeRel >/dev/null
	@$(CMAKE) --build $(BUILD_FOOTPRINT) -j $(JOBS)
	@PTE_CORPUS=$${PTE_CORPUS:-$(CURDIR)/../shared/corpus} sh cmake/footprint.sh $(BUILD_FOOTPRINT)

# Cortex-M (docs/mcu.md): cross-builds the QEMU runner for M4, M7 and M55 into $(BUILD_MCU)/<core>
# (gcc-arm-none-eabi + newlib), runs the Arduino program and the int8 KWS network on
# mps2-an386 / mps2-an500 / mps3-an547 under qemu-system-arm and compares with the host build.
# Not part of the default build. MCU_CORES=m4 limits the cores.
MCU_CORES ?= m4 m7 m55
mcu: configure
	@$(CMAKE) --build $(BUILD) -j $(JOBS) --target pte_mcu_host >$(BUILD)/mcu-host-build.log 2>&1 || { cat $(BUILD)/mcu-host-build.log; exit 1; }
	@JOBS=$(JOBS) sh targets/qemu/run.sh $(BUILD) $(BUILD_MCU) $(MCU_CORES)

# Thumb-2 footprint: .text/.rodata/.data/.bss of the core and kernel libraries for M4 and M55, the
# linked images, each model's RAM need and stack high-water mark, the 32 KiB core .text budget.
footprint-mcu: configure
	@$(CMAKE) --build $(BUILD) -j $(JOBS) --target pte_mcu_host >$(BUILD)/mcu-host-build.log 2>&1 || { cat $(BUILD)/mcu-host-build.log; exit 1; }
	@mkdir -p $(BUILD_MCU) && JOBS=$(JOBS) sh targets/qemu/run.sh $(BUILD) $(BUILD_MCU) m4 m55 >$(BUILD_MCU)/run.log 2>&1 || { cat $(BUILD_MCU)/run.log; exit 1; }
	@sh targets/qemu/footprint.sh $(BUILD_MCU) m4 m55

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_TSAN) $(BUILD_FOOTPRINT) $(BUILD_MCU) build-fuzz

# Regenerates the checked-in generated/pte_gen/ from schema/*.fbs with the host tool tools/fbsgen
# (compiled here with the host compiler HOST_CC; the normal build never runs it). ctest
# schema_regen fails until the result is committed.
HOST_CC ?= cc
regen-schema:
	@mkdir -p $(BUILD)/host
	@$(HOST_CC) -std=c11 -O1 -o $(BUILD)/host/pte_fbsgen tools/fbsgen/*.c -lm
	@sh tools/fbsgen/regen.sh $(BUILD)/host/pte_fbsgen schema generated
	@echo "regenerated generated/pte_gen/ from schema/*.fbs"
