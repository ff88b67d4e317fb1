#ifndef MITMSIM_CLIBFUZZER_SHIM_H
#define MITMSIM_CLIBFUZZER_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's driver (compiler-rt's FuzzerInterface.h), linked only into a fuzzing build (Docs/fuzzing.md). */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
