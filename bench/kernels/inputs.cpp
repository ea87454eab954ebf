#include "inputs.h"

#include "mtx_reader.h"
#include "problems.h"
#include "row_block.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

namespace amgt::kbench {
namespace {

HostCsr from_row_block(const RowBlock& rb, int64_t ncols, const std::string& name)
{
   const int64_t imax = std::numeric_limits<int32_t>::max();
   if (rb.num_rows() > imax || ncols > imax || rb.nnz() > imax)
   {
      throw BenchError(name + ": more than 2^31-1 rows or nonzeros (32-bit CSR)");
   }
   HostCsr h;
   h.nrows = static_cast<int32_t>(rb.num_rows());
   h.ncols = static_cast<int32_t>(ncols);
   h.row_ptr.assign(rb.row_ptr.begin(), rb.row_ptr.end());
   h.col.assign(rb.col.begin(), rb.col.end());
   h.val = rb.val;
   validate(h, name);
   sort_rows(h);
   return h;
}

// block4 (bench only): A = kron(L7, M) on an n^3 grid, L7 the 7-point Laplacian (6 on the
// diagonal, -1 per face neighbour, Dirichlet boundary eliminated), M = 3 I + ones(4) (SPD,
// eigenvalues 7, 3, 3, 3), so A is SPD. Node p owns rows 4p..4p+3: every coupling is a dense
// 4x4 block aligned with the mBSR tiles, i.e. fill 16 (the tensor-core paths' best case;
// a 3-dof elasticity matrix's 3x3 blocks straddle the 4x4 tiles). num_functions 4.
Input block4_input(const ProblemSpec& spec)
{
   const int64_t n = spec.n, nodes = n * n * n, rows = 4 * nodes;
   Input         in;
   in.name = spec.kind + "_n" + std::to_string(n);
   if (rows * 28 > std::numeric_limits<int32_t>::max())
   {
      throw BenchError(in.name + ": too large for 32-bit CSR indices");
   }
   HostCsr& h = in.A;
   h.nrows    = static_cast<int32_t>(rows);
   h.ncols    = static_cast<int32_t>(rows);
   h.row_ptr.assign(1, 0);
   h.col.reserve(static_cast<size_t>(rows) * 28);
   h.val.reserve(static_cast<size_t>(rows) * 28);
   for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < n; ++j)
         for (int64_t i = 0; i < n; ++i)
         {
            // Neighbours in ascending node number, the node itself in the middle.
            int64_t nb[7];
            double  w[7];
            int     cnt = 0;
            auto    add = [&](bool ok, int64_t q, double v) {
               if (ok) { nb[cnt] = q; w[cnt++] = v; }
            };
            const int64_t p = i + n * (j + n * k);
            add(k > 0, p - n * n, -1.0);
            add(j > 0, p - n, -1.0);
            add(i > 0, p - 1, -1.0);
            add(true, p, 6.0);
            add(i + 1 < n, p + 1, -1.0);
            add(j + 1 < n, p + n, -1.0);
            add(k + 1 < n, p + n * n, -1.0);
            for (int r = 0; r < 4; ++r)
            {
               for (int q = 0; q < cnt; ++q)
                  for (int c = 0; c < 4; ++c)
                  {
                     h.col.push_back(static_cast<int32_t>(4 * nb[q] + c));
                     h.val.push_back(w[q] * (r == c ? 4.0 : 1.0));
                  }
               h.row_ptr.push_back(static_cast<int32_t>(h.col.size()));
            }
         }
   validate(h, in.name);
   in.num_functions = 4;
   return in;
}

Input band_input(const ProblemSpec& spec)
{
   const int64_t rows = spec.n;
   const int     len  = spec.len;
   Input         in;
   in.name = "band_r" + std::to_string(rows) + "_l" + std::to_string(len);
   if (rows * len > std::numeric_limits<int32_t>::max()) throw BenchError(in.name + ": too large for 32-bit CSR");
   int64_t n = static_cast<int64_t>(std::cbrt(static_cast<double>(rows)));
   while ((n + 1) * (n + 1) * (n + 1) <= rows) ++n;
   while (n > 1 && n * n * n > rows) --n;
   n = std::max<int64_t>(n, 1);
   // the 124 neighbours of the 5x5x5 cube, nearest first (ties: by linear offset)
   struct Nb
   {
      int dx, dy, dz, d2;
   };
   std::vector<Nb> nbs;
   for (int dz = -2; dz <= 2; ++dz)
      for (int dy = -2; dy <= 2; ++dy)
         for (int dx = -2; dx <= 2; ++dx)
            if (dx || dy || dz) nbs.push_back(Nb{dx, dy, dz, dx * dx + dy * dy + dz * dz});
   std::stable_sort(nbs.begin(), nbs.end(), [](const Nb& a, const Nb& b) { return a.d2 < b.d2; });
   nbs.resize(static_cast<size_t>(len - 1));
   HostCsr& h = in.A;
   h.nrows = h.ncols = static_cast<int32_t>(rows);
   h.row_ptr.assign(1, 0);
   h.col.reserve(static_cast<size_t>(rows * len));
   h.val.reserve(static_cast<size_t>(rows * len));
   const int64_t plane = n * n;
   for (int64_t r = 0; r < rows; ++r)
   {
      const int64_t x = r % n, y = (r / n) % n, z = r / plane;
      h.col.push_back(static_cast<int32_t>(r));
      h.val.push_back(static_cast<double>(len));
      for (const Nb& b : nbs)
      {
         const int64_t xx = x + b.dx, yy = y + b.dy, zz = z + b.dz;
         if (xx < 0 || xx >= n || yy < 0 || yy >= n || zz < 0) continue;
         const int64_t c = xx + n * (yy + n * zz);
         if (c >= rows) continue;
         h.col.push_back(static_cast<int32_t>(c));
         h.val.push_back(-1.0);
      }
      h.row_ptr.push_back(static_cast<int32_t>(h.col.size()));
   }
   validate(h, in.name);
   sort_rows(h);
   return in;
}

} // namespace

Input generated_input(const ProblemSpec& spec)
{
   if (spec.kind == "block4") return block4_input(spec);
   if (spec.kind == "band") return band_input(spec);
   const auto kind = problems::parse_kind(spec.kind);
   if (!kind) throw BenchError("unknown problem " + spec.kind);
   problems::Problem p{*kind, spec.n};
   Input             in;
   in.name = spec.kind + "_n" + std::to_string(spec.n);
   const int64_t rows = p.global_rows();
   if (rows * p.max_row_entries() > std::numeric_limits<int32_t>::max())
   {
      throw BenchError(in.name + ": too large for 32-bit CSR indices");
   }
   RowBlock rb;
   problems::generate_rows(p, Range{0, rows}, rb);
   in.A             = from_row_block(rb, rows, in.name);
   in.num_functions = p.block_size();
   return in;
}

Input file_input(const std::string& path, int num_functions)
{
   io::MtxMatrix m = io::read_matrix_market(path);
   for (const std::string& w : m.info.warnings) std::fprintf(stderr, "%s: %s\n", path.c_str(), w.c_str());
   Input       in;
   std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
   for (const std::string ext : {".gz", ".mtx"})
   {
      if (base.size() > ext.size() && base.compare(base.size() - ext.size(), ext.size(), ext) == 0)
      {
         base.erase(base.size() - ext.size());
      }
   }
   in.name          = base;
   in.A             = from_row_block(m.rows, m.info.cols, in.name);
   in.num_functions = num_functions;
   return in;
}

HostCsr synthetic_interpolation(const HostCsr& A, int max_per_row)
{
   if (A.nrows != A.ncols) throw BenchError("synthetic interpolation: the matrix is not square");
   std::vector<int32_t> coarse(static_cast<size_t>(A.nrows), -1); // coarse index, -1 fine
   int32_t              nc = 0;
   for (int32_t i = 0; i < A.nrows; ++i)
   {
      bool neighbour = false;
      for (int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1] && !neighbour; ++k)
         neighbour = A.col[k] != i && coarse[A.col[k]] >= 0;
      if (!neighbour) coarse[i] = nc++;
   }
   HostCsr P;
   P.nrows = A.nrows;
   P.ncols = nc;
   P.row_ptr.assign(1, 0);
   std::vector<int32_t> cols;
   std::vector<double>  w;
   for (int32_t i = 0; i < A.nrows; ++i)
   {
      if (coarse[i] >= 0)
      {
         P.col.push_back(coarse[i]);
         P.val.push_back(1.0);
      }
      else
      {
         cols.clear();
         w.clear();
         double sum = 0.0;
         for (int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1] && static_cast<int>(cols.size()) < max_per_row; ++k)
         {
            const int32_t j = A.col[k];
            if (j == i || coarse[j] < 0) continue;
            cols.push_back(coarse[j]);
            w.push_back(std::fabs(A.val[k]) + 1e-3);
            sum += w.back();
         }
         // A's columns ascending and the coarse numbering monotone: P's columns come sorted
         for (size_t q = 0; q < cols.size(); ++q)
         {
            P.col.push_back(cols[q]);
            P.val.push_back(w[q] / sum);
         }
      }
      P.row_ptr.push_back(static_cast<int32_t>(P.col.size()));
   }
   sort_rows(P); // A's rows need not come sorted (--matrix files are sorted by from_row_block)
   validate(P, "synthetic interpolation");
   return P;
}

} // namespace amgt::kbench
