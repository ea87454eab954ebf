// HIP compile check only (plugin/device/hip_compat.h): the CUDA runtime header is HIP's.
#pragma once
#include <hip/hip_runtime.h>
