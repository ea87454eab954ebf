// CSR <-> mBSR on the GPU (mbsr_device.h): the driver csr_to_mbsr, which picks a conversion,
// and the small utilities mbsr_nnz and to_host.
//
// csr_to_mbsr has two ways of grouping a block row's entries into tiles: hashed (the usual
// one; no sort, one read-back), in mbsr_hashed.cu (tier 0 in mbsr_hashed_tier0.cu), and
// sorted (the fallback, for duplicate entries and block rows longer than kHashedMaxEntries),
// in mbsr_sorted.cu. Each file describes its design at its top. mbsr_to_csr is in
// mbsr_to_csr.cu.
//
// Both: the structure is exact; values are rounded once, from the fp64 sum, to the storage
// type.
#include "mbsr/mbsr_internal.cuh"

#include "device/launch.h"

#include "device/prim.cuh"
#include "rows/rows_device.h"

#include <type_traits>

namespace amgt::device {
namespace {

__global__ void tile_popcounts(const uint16_t* map, int64_t ntiles, int64_t* out)
{
   int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (t < ntiles) out[t] = __popc(static_cast<unsigned>(map[t]));
}

} // namespace

using mbsr_detail::csr_to_mbsr_hashed;
using mbsr_detail::csr_to_mbsr_sorted;

template <class V>
DeviceMbsr<V> csr_to_mbsr(const CsrView& a, Stream stream, const Allocator& alloc,
                          const ConvertOptions& options, ConversionInfo* info)
{
   DeviceMbsr<V>   m = mbsr_detail::mbsr_shell<V>(a);
   ConversionInfo  local;
   ConversionInfo& inf = info ? *info : local;
   inf                 = ConversionInfo{};
   if (a.nnz == 0 || a.nrows == 0)
   {
      // no entries (a row pointer of zeros is checked by the sorted path's rule: row_ptr[nrows]
      // must be nnz = 0, which the caller's view states)
      m              = csr_to_mbsr_sorted<V>(a, stream, alloc);
      m.summary.known = true;
      if (options.packed)
      {
         m.packed_row = Buffer<int64_t>(static_cast<size_t>(m.block_rows) + 1, alloc);
         AMGT_DEVICE_CHECK(device::memset_async(m.packed_row.get(), 0, m.packed_row.size() * sizeof(int64_t), stream));
      }
      inf.hashed = true; // nothing to group
      return m;
   }
   if (options.path == ConversionPath::automatic)
   {
      m.blk_ptr = Buffer<int32_t>(static_cast<size_t>(m.block_rows) + 1, alloc);
      if (csr_to_mbsr_hashed<V>(a, stream, alloc, options, m, inf)) return m;
   }
   else { inf.reason = "sorted conversion requested"; }
   return csr_to_mbsr_sorted<V>(a, stream, alloc);
}

template <class V>
int64_t mbsr_nnz(const DeviceMbsr<V>& m, Stream stream, const Allocator& alloc)
{
   if (m.num_tiles == 0) return 0;
   if (m.summary.known) return m.summary.nnz;
   Buffer<int64_t> counts(m.num_tiles, alloc), total(1, alloc);
   tile_popcounts<<<blocks_for(m.num_tiles), kThreads, 0, stream>>>(m.blk_map.get(), m.num_tiles,
                                                                      counts.get());
   AMGT_DEVICE_CHECK_LAUNCH("tile_popcounts");
   size_t bytes = 0;
   AMGT_DEVICE_CHECK(device::prim::DeviceReduce::Sum(nullptr, bytes, counts.get(), total.get(), m.num_tiles, stream));
   Buffer<char> temp(bytes, alloc);
   AMGT_DEVICE_CHECK(device::prim::DeviceReduce::Sum(temp.get(), bytes, counts.get(), total.get(), m.num_tiles, stream));
   int64_t n = 0;
   AMGT_DEVICE_CHECK(device::memcpy_async(&n, total.get(), sizeof(n), device::Copy::to_host, stream));
   AMGT_DEVICE_CHECK(device::stream_synchronize(stream));
   return n;
}

template <class V>
Mbsr<V> to_host(const DeviceMbsr<V>& m, Stream stream)
{
   Mbsr<V> h;
   h.nrows = m.nrows;
   h.ncols = m.ncols;
   h.blk_ptr.resize(static_cast<size_t>(m.block_rows) + 1);
   h.blk_col.resize(m.num_tiles);
   h.blk_map.resize(m.num_tiles);
   h.blk_val.resize(static_cast<size_t>(m.num_tiles) * 16);
   auto copy = [&](void* dst, const void* src, size_t bytes) {
      if (bytes) AMGT_DEVICE_CHECK(device::memcpy_async(dst, src, bytes, device::Copy::to_host, stream));
   };
   copy(h.blk_ptr.data(), m.blk_ptr.get(), h.blk_ptr.size() * sizeof(int32_t));
   copy(h.blk_col.data(), m.blk_col.get(), h.blk_col.size() * sizeof(int32_t));
   copy(h.blk_map.data(), m.blk_map.get(), h.blk_map.size() * sizeof(uint16_t));
   copy(h.blk_val.data(), m.blk_val.get(), h.blk_val.size() * sizeof(V));
   AMGT_DEVICE_CHECK(device::stream_synchronize(stream));
   return h;
}

template <class V>
void refresh_packed_values(DeviceMbsr<V>& m, const CsrView& a, const double* unscale, Stream stream)
{
   AMGT_REQUIRE(m.entry_order && m.blk_val.size() == 0, "refresh_packed_values: not an entry-order copy");
   AMGT_REQUIRE(a.nrows == m.nrows && a.ncols == m.ncols && m.has_packed() &&
                   (m.packed_lent != nullptr || m.packed_val.size() == static_cast<size_t>(a.nnz)),
                "refresh_packed_values: the copy holds another shape or number of entries");
   AMGT_REQUIRE(a.nnz == 0 || a.val != nullptr, "refresh_packed_values: no values");
   if (m.packed_lent)
   {
      AMGT_REQUIRE((std::is_same_v<V, double> && unscale == nullptr),
                   "refresh_packed_values: a lent copy takes lent values");
      m.packed_lent = reinterpret_cast<const V*>(a.val);
      return;
   }
   // entry order: the packed values are the CSR's values in its order, as the row-wise layout's
   csr_values_to<V>(a, unscale, m.packed_val.get(), stream);
}

#define AMGT_INSTANTIATE(V)                                                                        \
   template void refresh_packed_values<V>(DeviceMbsr<V>&, const CsrView&, const double*, Stream); \
   template DeviceMbsr<V> csr_to_mbsr<V>(const CsrView&, Stream, const Allocator&,                \
                                         const ConvertOptions&, ConversionInfo*);                 \
   template int64_t       mbsr_nnz<V>(const DeviceMbsr<V>&, Stream, const Allocator&);           \
   template Mbsr<V> to_host<V>(const DeviceMbsr<V>&, Stream);
AMGT_INSTANTIATE(double)
AMGT_INSTANTIATE(float)
AMGT_INSTANTIATE(half_t)
#undef AMGT_INSTANTIATE

} // namespace amgt::device
