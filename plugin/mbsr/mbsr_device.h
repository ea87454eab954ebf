// mBSR on the device: the same four arrays as Mbsr<V> (mbsr.h), in device memory, and the
// conversions CSR <-> mBSR done on the GPU (no host round trip).
#pragma once

#include "common/half.h"
#include "device/runtime.h"
#include "mbsr/mbsr.h"

#include <cstdint>

namespace amgt::device {

// V is the storage type: double, float or half_t (binary16 bits; the kernels read them as
// __half). Host and device therefore share one value layout and tests compare bit for bit.
template <class V>
struct DeviceMbsr
{
   int32_t          nrows = 0, ncols = 0;
   int32_t          block_rows = 0, block_cols = 0;
   int64_t          num_tiles = 0;
   Buffer<int32_t>  blk_ptr; // block_rows + 1
   Buffer<int32_t>  blk_col; // num_tiles, sorted within a block row
   Buffer<uint16_t> blk_map; // num_tiles
   Buffer<V>        blk_val; // 16 * num_tiles, row-major per tile
};

// A CSR matrix in device memory (columns unsorted within a row; val == nullptr: all ones).
// Duplicate entries are summed, as in the CPU reference.
template <class V>
DeviceMbsr<V> csr_to_mbsr(const CsrView& a, Stream stream, const Allocator& alloc);

// Number of stored entries (sum of popcounts); reads back one scalar (synchronises).
template <class V>
int64_t mbsr_nnz(const DeviceMbsr<V>& m, Stream stream, const Allocator& alloc);

// Sorted CSR into caller-provided device arrays (row_ptr: nrows+1, col/val: mbsr_nnz).
template <class V>
void mbsr_to_csr(const DeviceMbsr<V>& m, int32_t* row_ptr, int32_t* col, double* val,
                 Stream stream, const Allocator& alloc);

// Device -> host copy (tests, statistics); synchronises the stream.
template <class V>
Mbsr<V> to_host(const DeviceMbsr<V>& m, Stream stream);

} // namespace amgt::device
