// MUTANT: an entry that is no device is skipped, not the end of the list: "0,2,-1,1" shows 0, 2, 1
// Task week06.visible_devices. The doc comment above the function is its contract; your code goes
// between BEGIN and END. Hints, one at a time: `./grade hint week06.visible_devices`.

#include <algorithm>
#include <string>
#include <vector>

#include <kindling/cuda/runtime.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::cuda {

/// The devices a process sees on a machine with `physical` GPUs, by the CUDA runtime's rule for
/// the environment variable CUDA_VISIBLE_DEVICES, whose value is `value`:
/// - null (the variable is unset): every device, 0 to physical - 1, in order;
/// - otherwise a comma-separated list, read left to right. Each entry is read as strtoul reads a
///   number: blanks before it are skipped, then the digits at its start are the index ("1gpu" is
///   1). The indices are kept in the order given (the process numbers them 0, 1, ... in that
///   order). The first entry that is no valid index (no digit at its start, as in "" or "-1" or
///   "gpu0"; an index not below `physical`; or one already listed) ends the list: it and every
///   entry after it are hidden. So an empty value hides every device.
/// A number with more digits than any index (say twenty) is no device: it must not overflow into
/// one. The result never repeats a device.
std::vector<int> visible_devices(const char* value, int physical) {
  // BEGIN SOLUTION week06.visible_devices
  std::vector<int> out;
  if (value == nullptr) {
    for (int i = 0; i < physical; ++i) out.push_back(i);
    return out;
  }
  const std::string s = value;
  std::size_t start = 0;
  while (!s.empty() && start <= s.size()) {
    const std::size_t end = std::min(s.find(',', start), s.size());
    std::size_t i = start;
    while (i < end && (s[i] == ' ' || s[i] == '\t')) ++i;  // strtoul skips leading blanks
    long long index = -1;
    if (i < end && s[i] >= '0' && s[i] <= '9') {
      index = 0;  // the digits at the start; stop once the number is past every device
      while (i < end && s[i] >= '0' && s[i] <= '9' && index < physical) index = index * 10 + (s[i++] - '0');
    }
    if (!(index < 0 || index >= physical || std::find(out.begin(), out.end(), index) != out.end()))
      out.push_back(static_cast<int>(index));
    start = end + 1;
  }
  return out;
  // END SOLUTION
}

}  // namespace kindling::cuda
