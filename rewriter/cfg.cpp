#include "rewriter/cfg.h"

#include "classfile/opcodes.h"

namespace duplex {
namespace {

void mark_targets(const CodeIR& ir, Cfg& cfg) {
  cfg.label_is_target.assign(ir.labels.size(), 0);
  auto mark = [&](LabelId l) {
    if (l < cfg.label_is_target.size()) cfg.label_is_target[l] = 1;
  };
  for (const Insn& i : ir.insns) {
    if (i.is_label()) continue;
    if (i.target != kNoLabel) mark(i.target);
    if (is_switch(static_cast<uint8_t>(i.opcode)) && i.switch_index < ir.switches.size()) {
      for (LabelId l : ir.switches[i.switch_index].targets) mark(l);
    }
  }
  // Try-range bounds split blocks too, so that a block is wholly inside or outside a range.
  for (const TryCatch& t : ir.try_catches) {
    mark(t.start);
    mark(t.end);
    mark(t.handler);
  }
}

bool is_jump(uint16_t opcode) {
  auto op8 = static_cast<uint8_t>(opcode);
  return is_conditional_branch(op8) || ends_block(op8) || opcode == op::kJsr || opcode == op::kJsrW;
}

// True when the run of labels starting at insn i holds a jump target or range bound.
bool run_has_target(const CodeIR& ir, const Cfg& cfg, size_t i) {
  for (; i < ir.insns.size() && ir.insns[i].is_label(); ++i) {
    if (cfg.label_is_target[ir.insns[i].label()]) return true;
  }
  return false;
}

void split_blocks(const CodeIR& ir, Cfg& cfg) {
  const size_t n = ir.insns.size();
  cfg.block_of_insn.assign(n, 0);
  bool start_new = true;
  for (size_t i = 0; i < n; ++i) {
    const Insn& insn = ir.insns[i];
    bool run_start = insn.is_label() && (i == 0 || !ir.insns[i - 1].is_label());
    bool leader = start_new || (run_start && run_has_target(ir, cfg, i));
    if (leader || cfg.blocks.empty()) {
      if (!cfg.blocks.empty()) cfg.blocks.back().end = static_cast<uint32_t>(i);
      cfg.blocks.push_back(BasicBlock{static_cast<uint32_t>(i), 0, -1, {}, false});
    }
    start_new = false;
    cfg.block_of_insn[i] = static_cast<uint32_t>(cfg.blocks.size() - 1);
    if (!insn.is_label()) {
      cfg.blocks.back().last_real = static_cast<int32_t>(i);
      start_new = is_jump(insn.opcode);
    }
  }
  if (!cfg.blocks.empty()) cfg.blocks.back().end = static_cast<uint32_t>(n);
}

void add_normal_edges(const CodeIR& ir, Cfg& cfg) {
  for (uint32_t b = 0; b < cfg.blocks.size(); ++b) {
    BasicBlock& block = cfg.blocks[b];
    bool falls = true;
    if (block.last_real >= 0) {
      const Insn& last = ir.insns[static_cast<size_t>(block.last_real)];
      auto op8 = static_cast<uint8_t>(last.opcode);
      if (is_switch(op8)) {
        const SwitchTable& table = ir.switches[last.switch_index];
        block.succs.push_back({cfg.block_of_label(last.target), EdgeKind::kSwitch, -1});
        for (size_t c = 0; c < table.targets.size(); ++c) {
          block.succs.push_back(
              {cfg.block_of_label(table.targets[c]), EdgeKind::kSwitch, static_cast<int32_t>(c)});
        }
      } else if (last.target != kNoLabel) {
        block.succs.push_back({cfg.block_of_label(last.target), EdgeKind::kBranch});
      }
      falls = !ends_block(op8);
    }
    if (falls && b + 1 < cfg.blocks.size()) {
      block.succs.insert(block.succs.begin(), {b + 1, EdgeKind::kFallthrough});
    }
  }
}

void add_exception_edges(const CodeIR& ir, Cfg& cfg) {
  for (uint32_t t = 0; t < ir.try_catches.size(); ++t) {
    const TryCatch& tc = ir.try_catches[t];
    // Range bounds are block leaders, so the range is a run of whole blocks.
    uint32_t first = cfg.block_of_label(tc.start);
    uint32_t last = cfg.block_of_label(tc.end);
    uint32_t handler = cfg.block_of_label(tc.handler);
    for (uint32_t b = first; b < last; ++b) {
      if (cfg.blocks[b].last_real < 0) continue;  // labels only: nothing can throw
      cfg.blocks[b].succs.push_back({handler, EdgeKind::kException, -1, t});
    }
  }
}

// Iterative depth-first search from the entry; an edge into a block on the stack is a back
// edge. Successor order is fixed, so the result is deterministic.
void mark_back_edges(Cfg& cfg) {
  if (cfg.blocks.empty()) return;
  enum : uint8_t { kWhite, kGray, kBlack };
  std::vector<uint8_t> color(cfg.blocks.size(), kWhite);
  std::vector<std::pair<uint32_t, size_t>> stack;  // block, next successor to visit
  stack.push_back({0, 0});
  color[0] = kGray;
  cfg.blocks[0].reachable = true;
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    BasicBlock& block = cfg.blocks[b];
    if (next == block.succs.size()) {
      color[b] = kBlack;
      stack.pop_back();
      continue;
    }
    CfgEdge& edge = block.succs[next++];
    if (color[edge.to] == kGray) {
      edge.back = true;
    } else if (color[edge.to] == kWhite) {
      color[edge.to] = kGray;
      cfg.blocks[edge.to].reachable = true;
      stack.push_back({edge.to, 0});
    }
  }
}

}  // namespace

Cfg build_cfg(const CodeIR& ir) {
  Cfg cfg;
  cfg.label_position.assign(ir.labels.size(), -1);
  for (size_t i = 0; i < ir.insns.size(); ++i) {
    if (ir.insns[i].is_label()) cfg.label_position[ir.insns[i].label()] = static_cast<int32_t>(i);
  }
  mark_targets(ir, cfg);
  split_blocks(ir, cfg);
  add_normal_edges(ir, cfg);
  add_exception_edges(ir, cfg);
  mark_back_edges(cfg);
  return cfg;
}

}  // namespace duplex
