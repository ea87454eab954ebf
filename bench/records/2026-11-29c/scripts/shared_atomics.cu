// What the shared-memory atomic adds of a double, a 64-bit integer and a float compile to on sm_90
// (nvcc -arch=sm_90 -cubin, then cuobjdump -sass): a probe, not part of the library.
__global__ void k(double* o, unsigned long long* u, float* f, const int* p, const double* v, int n){
  __shared__ double sd[256]; __shared__ unsigned long long su[256]; __shared__ float sf[256];
  int t=threadIdx.x; sd[t]=0; su[t]=0; sf[t]=0; __syncthreads();
  for(int i=t;i<n;i+=blockDim.x){ int q=p[i]&255; atomicAdd(&sd[q], v[i]); atomicAdd(&su[q], (unsigned long long)(long long)v[i]); atomicAdd(&sf[q], (float)v[i]); }
  __syncthreads(); o[t]=sd[t]; u[t]=su[t]; f[t]=sf[t];
}
