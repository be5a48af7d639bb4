// Element loads and stores shared by the CPU references and the GPU kernels,
// so that both round float16/bfloat16 exactly alike. Conversions are done on
// bit patterns (round to nearest even, NaN kept quiet), not through
// cuda_fp16.h / hip_fp16.h, whose host-side support differs between CUDA and
// HIP versions.
#pragma once

#include <cstdint>

#include "common/kernel_types.h"

#if defined(__CUDACC__) || defined(__HIPCC__)
#define CASEBOOK_HD __host__ __device__ __forceinline__
#else
#define CASEBOOK_HD inline
#endif

namespace casebook::kernels {

CASEBOOK_HD uint32_t float_bits(float value) {
  uint32_t bits;
  __builtin_memcpy(&bits, &value, sizeof(bits));
  return bits;
}

CASEBOOK_HD float bits_float(uint32_t bits) {
  float value;
  __builtin_memcpy(&value, &bits, sizeof(value));
  return value;
}

CASEBOOK_HD float bfloat16_to_float(uint16_t bits) {
  return bits_float(static_cast<uint32_t>(bits) << 16);
}

CASEBOOK_HD uint16_t float_to_bfloat16(float value) {
  uint32_t bits = float_bits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
  }
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

CASEBOOK_HD float float16_to_float(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float magnitude =
        static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return bits_float(sign | 0x7f800000u | (mantissa << 13));
  return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

// Rounds `mantissa >> shift` to nearest, ties to even.
CASEBOOK_HD uint32_t shift_right_round_even(uint32_t mantissa, uint32_t shift) {
  const uint32_t kept = mantissa >> shift;
  const uint32_t rest = mantissa & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1u);
  return kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
}

CASEBOOK_HD uint16_t float_to_float16(float value) {
  uint32_t bits = float_bits(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  bits &= 0x7fffffffu;
  if (bits > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);
  const uint32_t exponent = bits >> 23;
  if (exponent >= 143) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 2^16
  const uint32_t mantissa = (bits & 0x7fffffu) | 0x800000u;
  if (exponent >= 113) {  // a normal float16; a carry may round up to inf
    const uint32_t rounded = shift_right_round_even(mantissa, 13) - 0x400u;
    return static_cast<uint16_t>(sign + ((exponent - 112u) << 10) + rounded);
  }
  if (exponent < 101) return static_cast<uint16_t>(sign);  // below 2^-25
  // Subnormal float16: units of 2^-24 (a round-up to 0x400 is the smallest
  // normal).
  return static_cast<uint16_t>(
      sign | shift_right_round_even(mantissa, 126u - exponent));
}

// Element traits: how a kernel reads and writes one element type.
struct Float32Element {
  using Storage = float;
  static CASEBOOK_HD float load(Storage value) { return value; }
  static CASEBOOK_HD Storage store(float value) { return value; }
};
struct Float16Element {
  using Storage = uint16_t;
  static CASEBOOK_HD float load(Storage value) {
    return float16_to_float(value);
  }
  static CASEBOOK_HD Storage store(float value) {
    return float_to_float16(value);
  }
};
struct BFloat16Element {
  using Storage = uint16_t;
  static CASEBOOK_HD float load(Storage value) {
    return bfloat16_to_float(value);
  }
  static CASEBOOK_HD Storage store(float value) {
    return float_to_bfloat16(value);
  }
};

// Reads index `i` of an int32 or int64 index input.
CASEBOOK_HD int64_t load_index(const void* data, CasebookScalarType type,
                               int64_t offset) {
  return type == CASEBOOK_INT32
             ? static_cast<int64_t>(static_cast<const int32_t*>(data)[offset])
             : static_cast<const int64_t*>(data)[offset];
}

}  // namespace casebook::kernels
