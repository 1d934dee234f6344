#include "rewriter/cfg.h"

#include <utility>

#include "classfile/opcodes.h"

namespace duplex {
namespace {

// The calling thread's spare buffers: a Cfg's own, and build_cfg's work lists.
struct Spares {
  std::vector<BasicBlock> blocks;
  std::vector<CfgEdge> edges;
  std::vector<uint32_t> block_of_insn;
  std::vector<int32_t> label_position;
  std::vector<uint8_t> label_is_target;
  std::vector<uint32_t> edge_slots;
  std::vector<uint8_t> color;
  std::vector<std::pair<uint32_t, uint32_t>> stack;
};

Spares& spares() {
  return *scratch::PerThread<Spares>::get();
}

// Takes a Cfg's buffers from the thread's spares, or gives them back (unless the thread's
// spares are already gone: a Cfg destroyed during the thread's teardown).
void exchange_buffers(Cfg& cfg, bool taking) {
  Spares* spare =
      taking ? scratch::PerThread<Spares>::get() : scratch::PerThread<Spares>::existing();
  if (spare == nullptr) return;
  Spares& s = *spare;
  scratch::exchange(cfg.blocks, s.blocks, taking);
  scratch::exchange(cfg.edges, s.edges, taking);
  scratch::exchange(cfg.block_of_insn, s.block_of_insn, taking);
  scratch::exchange(cfg.label_position, s.label_position, taking);
  scratch::exchange(cfg.label_is_target, s.label_is_target, taking);
}

void place_labels(const CodeIR& ir, Cfg& cfg) {
  cfg.label_position.assign(ir.labels.size(), -1);
  for (size_t i = 0; i < ir.insns.size(); ++i) {
    if (ir.insns[i].is_label()) cfg.label_position[ir.insns[i].label()] = static_cast<int32_t>(i);
  }
}

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
  cfg.block_of_insn.resize(n);
  bool start_new = true;
  for (size_t i = 0; i < n; ++i) {
    const Insn& insn = ir.insns[i];
    bool run_start = insn.is_label() && (i == 0 || !ir.insns[i - 1].is_label());
    bool leader = start_new || (run_start && run_has_target(ir, cfg, i));
    if (leader || cfg.blocks.empty()) {
      if (!cfg.blocks.empty()) cfg.blocks.back().end = static_cast<uint32_t>(i);
      cfg.blocks.push_back(BasicBlock{static_cast<uint32_t>(i), 0, -1, {}, 0, false});
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

// Appends block b's fall-through, branch and switch edges to cfg.edges, in that order.
void add_normal_edges(const CodeIR& ir, Cfg& cfg, uint32_t b) {
  const BasicBlock& block = cfg.blocks[b];
  const Insn* last =
      block.last_real >= 0 ? &ir.insns[static_cast<size_t>(block.last_real)] : nullptr;
  auto op8 = last ? static_cast<uint8_t>(last->opcode) : uint8_t{0};
  bool falls = !last || !ends_block(op8);
  if (falls && b + 1 < cfg.blocks.size()) cfg.edges.push_back({b + 1, EdgeKind::kFallthrough});
  if (!last) return;
  if (is_switch(op8)) {
    const SwitchTable& table = ir.switches[last->switch_index];
    cfg.edges.push_back({cfg.block_of_label(last->target), EdgeKind::kSwitch, -1});
    for (size_t c = 0; c < table.targets.size(); ++c) {
      cfg.edges.push_back(
          {cfg.block_of_label(table.targets[c]), EdgeKind::kSwitch, static_cast<int32_t>(c)});
    }
  } else if (last->target != kNoLabel) {
    cfg.edges.push_back({cfg.block_of_label(last->target), EdgeKind::kBranch});
  }
}

// Calls f(block, edge) for each exception edge, by exception-table entry.
template <class F>
void for_each_exception_edge(const CodeIR& ir, const Cfg& cfg, F&& f) {
  for (uint32_t t = 0; t < ir.try_catches.size(); ++t) {
    const TryCatch& tc = ir.try_catches[t];
    // Range bounds are block leaders, so the range is a run of whole blocks.
    uint32_t first = cfg.block_of_label(tc.start);
    uint32_t last = cfg.block_of_label(tc.end);
    uint32_t handler = cfg.block_of_label(tc.handler);
    for (uint32_t b = first; b < last; ++b) {
      if (cfg.blocks[b].last_real < 0) continue;  // labels only: nothing can throw
      f(b, CfgEdge{handler, EdgeKind::kException, -1, t});
    }
  }
}

// Lays the edges out block after block, each block's in their final order. Exception edges
// come last in a block but are found by exception-table entry, so they are counted first and
// their slots left free.
void add_edges(const CodeIR& ir, Cfg& cfg) {
  scratch::Borrowed<uint32_t> slots(spares().edge_slots);
  std::vector<uint32_t>& next_slot = slots.vec;  // by block: count, then next exception slot
  next_slot.assign(cfg.blocks.size(), 0);
  for_each_exception_edge(ir, cfg, [&](uint32_t b, const CfgEdge&) { ++next_slot[b]; });
  for (uint32_t b = 0; b < cfg.blocks.size(); ++b) {
    cfg.blocks[b].first_edge = static_cast<uint32_t>(cfg.edges.size());
    add_normal_edges(ir, cfg, b);
    uint32_t handlers = next_slot[b];
    next_slot[b] = static_cast<uint32_t>(cfg.edges.size());
    cfg.edges.resize(cfg.edges.size() + handlers);
  }
  for_each_exception_edge(
      ir, cfg, [&](uint32_t b, const CfgEdge& edge) { cfg.edges[next_slot[b]++] = edge; });
  // The slices, now that `edges` stays where it is.
  for (uint32_t b = 0; b < cfg.blocks.size(); ++b) {
    BasicBlock& block = cfg.blocks[b];
    size_t end = b + 1 < cfg.blocks.size() ? cfg.blocks[b + 1].first_edge : cfg.edges.size();
    block.succs =
        std::span<const CfgEdge>(cfg.edges).subspan(block.first_edge, end - block.first_edge);
  }
}

// Iterative depth-first search from the entry; an edge into a block on the stack is a back
// edge. Successor order is fixed, so the result is deterministic.
void mark_back_edges(Cfg& cfg) {
  if (cfg.blocks.empty()) return;
  enum : uint8_t { kWhite, kGray, kBlack };
  scratch::Borrowed<uint8_t> colors(spares().color);
  scratch::Borrowed<std::pair<uint32_t, uint32_t>> stack_buffer(spares().stack);
  std::vector<uint8_t>& color = colors.vec;
  auto& stack = stack_buffer.vec;  // block, its next edge to visit (an index in cfg.edges)
  color.assign(cfg.blocks.size(), kWhite);
  stack.push_back({0, cfg.blocks[0].first_edge});
  color[0] = kGray;
  cfg.blocks[0].reachable = true;
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    const BasicBlock& block = cfg.blocks[b];
    if (next == block.first_edge + block.succs.size()) {
      color[b] = kBlack;
      stack.pop_back();
      continue;
    }
    CfgEdge& edge = cfg.edges[next++];
    if (color[edge.to] == kGray) {
      edge.back = true;
    } else if (color[edge.to] == kWhite) {
      color[edge.to] = kGray;
      cfg.blocks[edge.to].reachable = true;
      stack.push_back({edge.to, cfg.blocks[edge.to].first_edge});
    }
  }
}

}  // namespace

Cfg::~Cfg() {
  exchange_buffers(*this, /*taking=*/false);
}

Cfg build_cfg(const CodeIR& ir) {
  Cfg cfg;
  exchange_buffers(cfg, /*taking=*/true);
  place_labels(ir, cfg);
  mark_targets(ir, cfg);
  split_blocks(ir, cfg);
  add_edges(ir, cfg);
  mark_back_edges(cfg);
  return cfg;
}

}  // namespace duplex
