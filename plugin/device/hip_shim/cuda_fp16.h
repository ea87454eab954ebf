// HIP compile check only (plugin/device/hip_compat.h): CUDA's half type is HIP's __half.
#pragma once
#include <hip/hip_fp16.h>
