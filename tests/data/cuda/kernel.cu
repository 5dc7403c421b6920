#include <cstdio>
__global__ void fill(int *p) { p[threadIdx.x] = threadIdx.x; }
int main() {
  int *d = nullptr;
  cudaError_t e = cudaMalloc(&d, 1024);
  if (e == cudaSuccess) { fill<<<1, 256>>>(d); e = cudaGetLastError(); }
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  printf("%s\n", e == cudaSuccess ? "ran" : cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
