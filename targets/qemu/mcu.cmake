# Cortex-M cross build (docs/mcu.md), included by CMakeLists.txt when PTE_MCU is ON, with the
# toolchain cmake/toolchain-arm-none-eabi.cmake (PTE_MCU_CPU picks the core and so the board):
#   libpte_core.a (defined before this file), libpte_kernels_{portable,cortex_m,quantized}.a, -Os
#   pte_mcu_<model>.elf: targets/qemu/runner.c + startup + the model and its input in flash
# PTE_MCU_HOST_TOOL = the host build's pte_mcu_host (plans the arenas, writes the KWS model): a
# host program; nothing built here runs on the host.
if(NOT CMAKE_CROSSCOMPILING)
  message(FATAL_ERROR "PTE_MCU needs -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-arm-none-eabi.cmake")
endif()
set(PTE_MCU_HOST_TOOL "" CACHE FILEPATH "The host build's pte_mcu_host")
if(NOT EXISTS "${PTE_MCU_HOST_TOOL}")
  message(FATAL_ERROR "PTE_MCU_HOST_TOOL='${PTE_MCU_HOST_TOOL}' does not exist: build the host target pte_mcu_host first")
endif()
set(PTE_MCU_DIR ${CMAKE_CURRENT_SOURCE_DIR}/targets/qemu)
# bare metal: absolute addresses, no GOT (the top level turns PIC on for the shared library)
set(CMAKE_POSITION_INDEPENDENT_CODE OFF)
set_target_properties(pte_core PROPERTIES POSITION_INDEPENDENT_CODE OFF)

if(PTE_MCU_CPU STREQUAL "cortex-m4")
  set(PTE_MCU_BOARD mps2-an386)
  set(PTE_MCU_SYSCLK 25000000)
elseif(PTE_MCU_CPU STREQUAL "cortex-m7")
  set(PTE_MCU_BOARD mps2-an500)
  set(PTE_MCU_SYSCLK 25000000)
else()
  set(PTE_MCU_BOARD mps3-an547)
  set(PTE_MCU_SYSCLK 32000000)
endif()
string(REGEX REPLACE "^mps[23]-" "" pte_mcu_ld ${PTE_MCU_BOARD})
set(PTE_MCU_LD ${PTE_MCU_DIR}/mps-${pte_mcu_ld}.ld)
set(PTE_MCU_STACK_SIZE 32768 CACHE STRING "Runner stack size in bytes")

# kernel libraries, for size like the core
foreach(klib portable cortex_m quantized)
  if(klib STREQUAL "portable")
    file(GLOB src CONFIGURE_DEPENDS kernels/portable/*.c kernels/portable/util/*.c)
  else()
    file(GLOB src CONFIGURE_DEPENDS kernels/${klib}/*.c)
  endif()
  add_library(pte_kernels_${klib} STATIC ${src})
  target_include_directories(pte_kernels_${klib} PUBLIC kernels PRIVATE src ${PTE_GEN_DIR})
  target_link_libraries(pte_kernels_${klib} PUBLIC pte_core)
  target_compile_options(pte_kernels_${klib} PRIVATE -Os)
endforeach()
target_link_libraries(pte_kernels_cortex_m PUBLIC pte_kernels_portable)
target_link_libraries(pte_kernels_quantized PUBLIC pte_kernels_portable)

# the board runner around one model: pte_mcu_image(NAME MODEL.pte INPUT.bin [DEPENDS ...]).
# Kernels: only the families the model's operators need (selective registration: `pte_mcu_host
# kernels` writes gen_NAME/pte_mcu_kernels.c; --gc-sections drops every other kernel), unless the
# caller sets PTE_MCU_ALL_KERNELS (every kernel of the three libraries) or PTE_MCU_NO_KERNELS.
function(pte_mcu_image name model input)
  set(gen ${CMAKE_CURRENT_BINARY_DIR}/gen_${name})
  file(MAKE_DIRECTORY ${gen})
  add_custom_command(OUTPUT ${gen}/pte_mcu_plan.h
    COMMAND ${PTE_MCU_HOST_TOOL} plan ${model} ${gen}/pte_mcu_plan.h
    DEPENDS ${model} ${PTE_MCU_HOST_TOOL} ${ARGN}
    COMMENT "pte_mcu_host plan ${name}")
  add_custom_command(OUTPUT ${gen}/pte_mcu_kernels.c
    COMMAND ${PTE_MCU_HOST_TOOL} kernels ${model} ${gen}/pte_mcu_kernels.c ${PTE_MAX_KERNELS}
    DEPENDS ${model} ${PTE_MCU_HOST_TOOL} ${ARGN}
    COMMENT "pte_mcu_host kernels ${name} (selective registration)")
  # one copy of model_blob.c per image: its .incbin paths and file dependencies are per image
  file(WRITE ${gen}/model_blob.c "#include \"${PTE_MCU_DIR}/model_blob.c\"\n")
  add_executable(pte_mcu_${name} ${PTE_MCU_DIR}/runner.c ${PTE_MCU_DIR}/startup.c ${PTE_MCU_DIR}/mcu_run.c
                 ${gen}/model_blob.c ${gen}/pte_mcu_plan.h)
  if(NOT PTE_MCU_ALL_KERNELS AND NOT PTE_MCU_NO_KERNELS)
    target_sources(pte_mcu_${name} PRIVATE ${gen}/pte_mcu_kernels.c)
    target_compile_definitions(pte_mcu_${name} PRIVATE PTE_MCU_SELECTED_KERNELS=1)
  endif()
  set_target_properties(pte_mcu_${name} PROPERTIES SUFFIX ".elf" RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  target_include_directories(pte_mcu_${name} PRIVATE ${gen} ${PTE_MCU_DIR})
  target_compile_options(pte_mcu_${name} PRIVATE -Os)
  target_compile_definitions(pte_mcu_${name} PRIVATE PTE_MCU_BOARD_NAME="${PTE_MCU_BOARD}"
                             PTE_MCU_SYSCLK_HZ=${PTE_MCU_SYSCLK}u)
  set_source_files_properties(${gen}/model_blob.c PROPERTIES
    COMPILE_DEFINITIONS "PTE_MCU_MODEL_FILE=${model};PTE_MCU_INPUT_FILE=${input}"
    OBJECT_DEPENDS "${model};${input};${PTE_MCU_DIR}/model_blob.c")
  target_link_libraries(pte_mcu_${name} PRIVATE pte_kernels_cortex_m pte_kernels_quantized pte_kernels_portable pte_core m c gcc)
  target_link_options(pte_mcu_${name} PRIVATE -nostartfiles -T${PTE_MCU_LD} -L${PTE_MCU_DIR}
                      -Wl,--defsym=__stack_size=${PTE_MCU_STACK_SIZE}
                      -Wl,-Map=${CMAKE_CURRENT_BINARY_DIR}/pte_mcu_${name}.map)
  set_target_properties(pte_mcu_${name} PROPERTIES LINK_DEPENDS "${PTE_MCU_LD};${PTE_MCU_DIR}/pte_mcu_sections.ld")
endfunction()

# models: the corpus's Arduino program (x + 1) and the int8 keyword-spotting network
set(PTE_MCU_ARDUINO ${PTE_CORPUS_DIR}/arduino_AddModel.pte)
if(EXISTS ${PTE_MCU_ARDUINO})
  pte_mcu_image(arduino_add ${PTE_MCU_ARDUINO} ${PTE_CORPUS_DIR}/io/arduino_AddModel.input0.float32.bin)
else()
  message(WARNING "corpus not found at PTE_CORPUS_DIR=${PTE_CORPUS_DIR}: pte_mcu_arduino_add is not built")
endif()
add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/kws.pte ${CMAKE_CURRENT_BINARY_DIR}/kws.input.bin
  COMMAND ${PTE_MCU_HOST_TOOL} kws ${CMAKE_CURRENT_BINARY_DIR}/kws.pte ${CMAKE_CURRENT_BINARY_DIR}/kws.input.bin
  DEPENDS ${PTE_MCU_HOST_TOOL}
  COMMENT "pte_mcu_host kws")
pte_mcu_image(kws ${CMAKE_CURRENT_BINARY_DIR}/kws.pte ${CMAKE_CURRENT_BINARY_DIR}/kws.input.bin)

# The same two models with every kernel of the three libraries registered (what an image links
# without selective registration; `make footprint-mcu` prints both). Their registry is the MCU's
# (PTE_MAX_KERNELS, sized for the selected kernels), so on the board they must stop at
# registration with RegistrationExceedingMaxKernels (run.sh checks it): sizes, plus the capacity
# check on the target.
set(PTE_MCU_ALL_KERNELS ON)
if(TARGET pte_mcu_arduino_add)
  pte_mcu_image(arduino_add_all ${PTE_MCU_ARDUINO} ${PTE_CORPUS_DIR}/io/arduino_AddModel.input0.float32.bin)
endif()
pte_mcu_image(kws_all ${CMAKE_CURRENT_BINARY_DIR}/kws.pte ${CMAKE_CURRENT_BINARY_DIR}/kws.input.bin)
set(PTE_MCU_ALL_KERNELS OFF)

# The core alone, for the footprint (targets/qemu/footprint.sh): the same runner with no kernel
# library registered or linked (like tests/footprint/size_test.c on the host). Built, not run.
if(TARGET pte_mcu_arduino_add)
  set(PTE_MCU_NO_KERNELS ON)
  pte_mcu_image(core_only ${PTE_MCU_ARDUINO} ${PTE_CORPUS_DIR}/io/arduino_AddModel.input0.float32.bin)
  target_compile_definitions(pte_mcu_core_only PRIVATE PTE_MCU_NO_KERNELS=1)
  set_property(TARGET pte_mcu_core_only PROPERTY LINK_LIBRARIES pte_core m c gcc)
endif()
