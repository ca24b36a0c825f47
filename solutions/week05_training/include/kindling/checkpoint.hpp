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
#include <functional>
#include <map>
#include <string>

#include <kindling/error.hpp>
#include <kindling/generator.hpp>
#include <kindling/lr_scheduler.hpp>
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

/// Any schedule whose state a checkpoint can hold: a pointer to an LRScheduler (StepLR,
/// CosineAnnealingLR, OneCycleLR, ...), a SequentialLR or a ReduceLROnPlateau converts
/// to one; a null pointer (or none) means no schedule.
class ScheduleRef {
 public:
  /// No schedule.
  ScheduleRef() = default;
  /// `schedule` (may be null: no schedule).
  template <class Schedule>
  ScheduleRef(Schedule* schedule) {  // NOLINT(google-explicit-constructor): `.scheduler = &s` reads best
    if (!schedule) return;
    save_ = [schedule] { return schedule->state_dict(); };
    load_ = [schedule](const optim::lr_scheduler::SchedulerState& st) { schedule->load_state_dict(st); };
  }
  /// True when a schedule is referred to.
  explicit operator bool() const { return static_cast<bool>(save_); }
  /// The schedule's state_dict().
  optim::lr_scheduler::SchedulerState state_dict() const { return save_(); }
  /// The schedule's load_state_dict().
  void load_state_dict(const optim::lr_scheduler::SchedulerState& state) const { load_(state); }

 private:
  std::function<optim::lr_scheduler::SchedulerState()> save_;
  std::function<void(const optim::lr_scheduler::SchedulerState&)> load_;
};

/// What a training checkpoint holds, as pointers to the live objects: save_checkpoint
/// reads them, load_checkpoint writes into them. Leave out (null) what you do not use.
struct TrainingState {
  nn::Module* model = nullptr;                   ///< its state_dict, under "model."
  optim::Optimizer* optimizer = nullptr;         ///< its state_dict(), in PyTorch's layout
  ScheduleRef scheduler;                         ///< its state_dict()
  std::map<std::string, Generator*> generators;  ///< each one's get_state(), by your name
  std::int64_t epoch = 0;                        ///< the epochs done (save) or read (load)
  std::map<std::string, std::string> extra;      ///< yours, in the metadata (save) or read (load)
};

/// Saves a training checkpoint, atomically, in one safetensors file:
/// - tensors "model.<key>" (the model's state_dict), "optimizer.state.<i>.<buffer>"
///   (PyTorch's state dict: buffers by parameter index, and "step" as a 0-d float64),
///   and "rng.<name>" (each generator's state as uint8 text);
/// - metadata "epoch", "optimizer.param_groups" (PyTorch's param_groups as JSON:
///   options under PyTorch's names, "betas" as a pair, flags as booleans, "params" as
///   indices), "scheduler" (the schedule's state_dict as a JSON object), and `extra`.
void save_checkpoint(const std::filesystem::path& path, const TrainingState& state);
/// Loads a checkpoint into what `state` points to: the model strictly (every key
/// must fit), then optimizer, schedule and generators. Everything is read and
/// checked before anything changes; what does not fit throws CheckpointError naming
/// the file and the part. Sets state.epoch and state.extra from the file; returns
/// the whole metadata.
std::map<std::string, std::string> load_checkpoint(const std::filesystem::path& path, TrainingState& state);

/// save_checkpoint of a model, an optimizer (may be null) and the epoch.
void save_checkpoint(const std::filesystem::path& path, nn::Module& model, optim::Optimizer* optimizer,
                     std::int64_t epoch, const std::map<std::string, std::string>& extra = {});
/// load_checkpoint into a model and an optimizer (may be null); returns the metadata
/// (its "epoch" says where to resume).
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
