// Basic blocks of a CodeIR and their control-flow edges, with the back edges marked.
//
// A back edge is an edge that closes a cycle: a retreating edge of a depth-first search from
// the entry, over normal and exception edges. Every cycle holds at least one, which is why
// checks on back edges (plus the entry) bound the work between two checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "classfile/code_ir.h"
#include "classfile/scratch.h"

namespace duplex {

enum class EdgeKind : uint8_t {
  kFallthrough,  // into the next block
  kBranch,       // the target of the block's branch or jsr
  kSwitch,       // a switch case or default (case_index = -1 for the default)
  kException,    // into a handler; try_index names the exception-table entry
};

struct CfgEdge {
  uint32_t to = 0;  // block index
  EdgeKind kind = EdgeKind::kFallthrough;
  int32_t case_index = -1;  // kSwitch
  uint32_t try_index = 0;   // kException
  bool back = false;
};

struct BasicBlock {
  uint32_t begin = 0;      // first insn index (may be a label)
  uint32_t end = 0;        // one past the last insn index
  int32_t last_real = -1;  // index of the last real instruction, -1 if none
  // The block's edges, a slice of Cfg::edges starting at first_edge: the fall-through, then
  // the branch or switch targets (the default first), then the exception edges in
  // exception-table order.
  std::span<const CfgEdge> succs;
  uint32_t first_edge = 0;
  bool reachable = false;
};

// Every method rewrite builds a Cfg, so its buffers are reused: build_cfg takes the calling
// thread's spare buffers and ~Cfg gives them back (classfile/scratch.h).
struct Cfg {
  std::vector<BasicBlock> blocks;
  std::vector<CfgEdge> edges;            // all blocks' succs, block after block
  std::vector<uint32_t> block_of_insn;   // by insn index
  std::vector<int32_t> label_position;   // by LabelId: insn index of its mark, -1 if unplaced
  std::vector<uint8_t> label_is_target;  // by LabelId: branch/switch target or handler

  Cfg() = default;
  // The blocks' succs point into `edges`: a copy would point into the original's.
  Cfg(const Cfg&) = delete;
  Cfg& operator=(const Cfg&) = delete;
  Cfg(Cfg&&) = default;
  Cfg& operator=(Cfg&&) = default;
  ~Cfg();

  uint32_t block_of_label(LabelId label) const {
    return block_of_insn[static_cast<size_t>(label_position[label])];
  }
};

// Builds the blocks and edges and marks back edges. Unplaced labels used as targets make the
// IR invalid; build_cfg assumes build_code_ir produced the IR.
Cfg build_cfg(const CodeIR& ir);

}  // namespace duplex
