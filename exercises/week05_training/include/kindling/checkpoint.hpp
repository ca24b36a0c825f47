#pragma once
/// @file checkpoint.hpp
/// Checkpoints: named tensors and string metadata in one file, in the safetensors
/// format (https://github.com/huggingface/safetensors: an 8-byte little-endian
/// header length, a JSON header, then the raw little-endian data), so that a PyTorch
/// user can open a Kindling checkpoint with `safetensors.torch.load_file`. Kindling
/// adds a CRC-32 of the header and data under `__metadata__["kindling.crc32"]`,
/// so that a damaged file is refused instead of loaded wrong. Writes are atomic: a
/// crash mid-save leaves the previous file intact.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include <kindling/error.hpp>
#include <kindling/module.hpp>
#include <kindling/optim.hpp>
#include <kindling/tensor.hpp>

namespace kindling::serialize {

/// Why a checkpoint could not be read: the message starts with the file's path.
class CheckpointError : public Error {
 public:
  using Error::Error;
};

/// What a checkpoint file holds.
struct FileContents {
  std::map<std::string, Tensor> tensors;        ///< by name, contiguous, on the CPU
  std::map<std::string, std::string> metadata;  ///< __metadata__ (strings only, as safetensors requires)
};

/// The file's bytes for `contents`: header (names sorted, offsets in that order,
/// padded with spaces to a multiple of 8) and data, with the CRC-32 filled in.
std::string encode(const FileContents& contents);

/// Writes `bytes` to `path` atomically: into a temporary file in the same folder,
/// flushed to disk (fsync), then renamed over `path`, and the folder synced (best
/// effort), so
/// that at every moment `path` is either the old file or the new one, complete.
/// Throws CheckpointError ("<path>: cannot write: <reason>") and removes the
/// temporary file when anything fails. (Task week05.checkpoint.)
void write_atomically(const std::filesystem::path& path, const std::string& bytes);

/// Reads and checks a file written by save_file. Throws CheckpointError naming the
/// file and the problem: missing,
/// truncated, a header that is not JSON, an unknown dtype, offsets that overlap
/// or leave gaps or run past the end, a shape that does not match its bytes, a
/// CRC mismatch, or no CRC at all: a damaged key must not switch the check off.
/// Pass `require_crc = false` to read a safetensors file written elsewhere (then
/// only the structure is checked). Never crashes and never returns a silently
/// wrong tensor.
FileContents load_file(const std::filesystem::path& path, bool require_crc = true);

/// encode() then write_atomically().
void save_file(const std::filesystem::path& path, const FileContents& contents);

/// A training checkpoint: the model's state_dict under "model.", the optimizer's
/// per-parameter buffers under "optimizer.<index>.<buffer>", and in the metadata the
/// epoch, the optimizer's step counts and group options, and `extra` (yours).
void save_checkpoint(const std::filesystem::path& path, nn::Module& model, optim::Optimizer* optimizer,
                     std::int64_t epoch, const std::map<std::string, std::string>& extra = {});
/// Loads what save_checkpoint wrote into `model` (strictly: every key must fit) and
/// `optimizer`; returns the metadata (its "epoch" says where to resume).
std::map<std::string, std::string> load_checkpoint(const std::filesystem::path& path, nn::Module& model,
                                                   optim::Optimizer* optimizer);

namespace detail {
/// CRC-32 (zlib's) of `bytes`, continuing from `crc`.
std::uint32_t crc32(const std::string& bytes, std::uint32_t crc = 0);
/// Parses and checks the header and data of a checkpoint's bytes (`name` for
/// messages). (Task week05.checkpoint.)
FileContents decode(const std::string& bytes, const std::string& name, bool require_crc = true);
}  // namespace detail

}  // namespace kindling::serialize
