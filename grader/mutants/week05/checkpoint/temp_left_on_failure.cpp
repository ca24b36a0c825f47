// MUTANT: does not remove the temporary file when the write fails
// Task week05.checkpoint. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week05.checkpoint`.

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <kindling/checked.hpp>
#include <kindling/checkpoint.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/factory.hpp>

#include "checkpoint_internal.hpp"

namespace kindling::serialize {

/// Atomic, durable replacement of `path` by `bytes` (POSIX). A reader, or a process
/// killed at any instant, sees either the old file or the new one, never a mix or
/// a partial file. When the call returns, the new bytes and the fact that `path`
/// names them are both on disk, not only in the page cache (best effort for the
/// folder: one that cannot be opened or synced is not an error, as some file
/// systems refuse). Any temporary file lives in `path`'s folder (a name such as
/// ".<filename>.tmp.<pid>") and is removed on failure. Note that write() may write
/// fewer bytes than asked.
/// On any failure: throw CheckpointError("<path>: cannot write: <strerror(errno)>").
void write_atomically(const std::filesystem::path& path, const std::string& bytes) {
  // BEGIN SOLUTION week05.checkpoint
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
  const std::filesystem::path tmp = folder / ("." + path.filename().string() + ".tmp." + std::to_string(getpid()));
  auto fail = [&](int err) { throw CheckpointError(path.string() + ": cannot write: " + std::strerror(err)); };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(errno);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      fail(err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    fail(err);
  }
  if (::close(fd) != 0) fail(errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail(errno);
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  // END SOLUTION
}

/// Parses a checkpoint's `bytes` (`name` starts every error message, as
/// "<name>: <problem>"), checking everything before trusting anything:
/// 1. At least 8 bytes; the little-endian u64 header length N fits in what
///    follows ("truncated").
/// 2. The N header bytes are a JSON object (detail::parse_header; "the header is
///    not valid JSON").
/// 3. The metadata's "kindling.crc32" (8 lowercase hex digits) equals the CRC-32 of
///    the header with those digits replaced by "00000000", followed by the data
///    ("CRC mismatch ... the file is damaged"). Without that entry: an error when
///    `require_crc` ("no kindling.crc32 in the metadata: ..."), since a damaged key
///    must not switch the check off; a safetensors file written elsewhere is read
///    with require_crc = false and skips this check.
/// 4. Each tensor entry has a known dtype, a shape of sizes >= 0 and data_offsets
///    [begin, end] whose length is numel * element size; sorted by begin, the
///    entries tile the data section exactly, from 0 to its end, with no overlap
///    and no gap. The shape itself must fit (checked_extent_bytes in
///    <kindling/checked.hpp>: "shape [...] is too large for any tensor"), before
///    anything multiplies its sizes, and every byte of a BOOL tensor is 0 or 1.
/// Only then copy each tensor's bytes into a new tensor.
/// The helpers in checkpoint_internal.hpp parse the header and map dtypes.
namespace detail {
FileContents decode(const std::string& bytes, const std::string& name, bool require_crc) {
  // BEGIN SOLUTION week05.checkpoint
  auto error = [&](const std::string& what) { return CheckpointError(name + ": " + what); };
  if (bytes.size() < 8)
    throw error("truncated: " + std::to_string(bytes.size()) + " bytes, less than the 8-byte header length");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  if (n > bytes.size() - 8)
    throw error("truncated: the header says " + std::to_string(n) + " bytes but only " +
                std::to_string(bytes.size() - 8) + " follow");
  const std::string header = bytes.substr(8, n);
  const std::string data = bytes.substr(8 + n);
  const Header h = parse_header(header, name);
  if (h.crc.empty() && require_crc)
    throw error(
        "no kindling.crc32 in the metadata: not a Kindling checkpoint, or its header is damaged (to read a "
        "safetensors file written elsewhere, pass require_crc = false)");
  if (!h.crc.empty()) {
    std::string zeroed = header;
    zeroed.replace(h.crc_at, 8, "00000000");
    const std::uint32_t computed = crc32(data, crc32(zeroed));
    if (hex8(computed) != h.crc)
      throw error("CRC mismatch (stored " + h.crc + ", computed " + hex8(computed) + "): the file is damaged");
  }
  std::vector<const Entry*> order;
  for (const auto& e : h.entries) order.push_back(&e);
  std::sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) { return a->begin < b->begin; });
  std::uint64_t at = 0;
  for (const Entry* e : order) {
    if (e->begin != at) throw error("tensor '" + e->name + "': its data offsets overlap another's or leave a gap");
    if (e->end > data.size())
      throw error("tensor '" + e->name + "': its data runs past the end of the file (truncated?)");
    // The shape's extent (every zero size counted as 1) must fit before anything
    // multiplies it: a damaged size must not overflow the byte count (a wrapped product
    // passes for a small tensor), nor the strides of a tensor with no elements at all
    // ([0, 2^62, 2^62] has 0 bytes and a stride of 2^124).
    if (!checked_extent_bytes(e->shape, element_size(e->dtype)))
      throw error("tensor '" + e->name + "': shape " + to_string(e->shape) + " is too large for any tensor");
    const auto bytes_needed = static_cast<std::uint64_t>(numel_of(e->shape)) * element_size(e->dtype);
    if (bytes_needed != e->end - e->begin)
      throw error("tensor '" + e->name + "': shape " + to_string(e->shape) + " needs " + std::to_string(bytes_needed) +
                  " bytes, its offsets give " + std::to_string(e->end - e->begin));
    // A bool is one byte that holds 0 or 1; reading any other byte as a bool is undefined.
    if (e->dtype == kBool)
      for (std::uint64_t i = e->begin; i < e->end; ++i)
        if (static_cast<unsigned char>(data[i]) > 1)
          throw error("tensor '" + e->name + "': element " + std::to_string(i - e->begin) + " is the byte " +
                      std::to_string(static_cast<unsigned char>(data[i])) + ", not a BOOL (0 or 1)");
    at = e->end;
  }
  if (at != data.size()) throw error("the data section has " + std::to_string(data.size() - at) + " unused bytes");
  FileContents out;
  out.metadata = h.metadata;
  for (const auto& e : h.entries) {
    Tensor t = empty(e.shape, TensorOptions().dtype(e.dtype));
    if (e.end > e.begin) std::memcpy(t.data_ptr(), data.data() + e.begin, e.end - e.begin);
    out.tensors.emplace(e.name, t);
  }
  return out;
  // END SOLUTION
}
}  // namespace detail

}  // namespace kindling::serialize
