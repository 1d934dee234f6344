// Rewriting ahead of class loading (agent option ahead=true).
//
// A first run under the agent spends 3-23% of its wall time in ClassFileLoadHook rewriting
// classes (docs/RESULTS.md), on the thread that loads them, while the machine's other cores
// are often idle. A rewrite depends only on the class bytes and the options, so it can be made
// before the JVM asks: a background thread rewrites the classes of the application class path
// that are likely to load next, and the hook takes the result when the bytes it is given are
// exactly the bytes that were rewritten (anything else is rewritten in the hook, as without
// this).
//
// Which classes, in what order: the main class first, then the classes each rewritten class
// names in its constant pool (breadth first), and whenever the hook sees a class load, that
// class's references go to the front: the program's own loading pulls the queue towards what it
// will load next; the references of its own rewrites are followed only while few of them wait
// unused (speculative_lead). Only classes the hook would select by name are rewritten. The
// work is bounded by the rewrites kept and not yet taken (kMaxHeldBytes): past it the thread
// waits; and what is not taken is dropped once loading stops (forget_after).
// docs/design/agent-ahead.md has what it buys and costs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/agent/class_cache.h"
#include "runtime/agent/class_path.h"

namespace duplex::agent {

struct AheadStats {
  uint64_t rewritten = 0;  // classes the background thread rewrote (or took from cache=DIR)
  uint64_t hits = 0;       // of those, taken by the hook
  uint64_t waited = 0;     // hooks that waited for the class the thread was rewriting
  uint64_t held = 0;       // rewritten and not (yet) taken
  uint64_t forgotten = 0;  // rewritten, not taken, and dropped once loading had stopped
  uint64_t cpu_ns = 0;     // the background thread's CPU time
  uint64_t class_path_classes = 0;  // classes the class path index holds
};

class AheadRewriter {
 public:
  // Makes a class's rewrite (nullopt: it cannot be rewritten; the hook will try and report).
  using Produce = std::function<std::optional<CachedRewrite>(std::span<const uint8_t>)>;
  // Whether the hook would select a class by its internal name.
  using Selected = std::function<bool(const std::string&)>;

  static constexpr uint64_t kMaxHeldBytes = 256ull << 20;

  // Builds the class path's index on the thread (`index` reads jars: not on the JVM's
  // start-up path).
  using Index = std::function<ClassPath()>;
  // The class to rewrite first (the launcher's main class), or "".
  using FirstClass = std::function<std::string()>;

  // `speculative_lead`: how many rewrites may wait unused before the thread stops following
  // its own rewrites' references (the references of classes that load are always followed).
  // `forget_after`: once no class has loaded for this long and nothing is left to do, the
  // rewrites not taken are dropped (a program that has settled is unlikely to load them, and a
  // long-running one should not keep them), and the thread guesses no more until a class loads.
  AheadRewriter(Index index, FirstClass first_class, Selected selected, Produce produce,
                size_t speculative_lead,
                std::chrono::milliseconds forget_after = std::chrono::seconds(30));
  ~AheadRewriter();
  AheadRewriter(const AheadRewriter&) = delete;
  AheadRewriter& operator=(const AheadRewriter&) = delete;

  // Starts the background thread. Throws std::system_error when no thread can be made.
  void start();
  // Ends the thread (a rewrite in progress is finished first) and drops what it held.
  void stop();

  // For the hook: the rewrite of `name` made from exactly `bytes`, if the thread has one (it
  // waits if the thread is making it now). Either way the thread learns that `name` is
  // loading.
  std::optional<CachedRewrite> take(const std::string& name, std::span<const uint8_t> bytes);

  AheadStats stats() const;
  // Waits until the thread has nothing left to do (queue empty, no load to follow) or until
  // `timeout_ms` passed; true if idle. For tests and tools: a running program keeps it busy.
  bool wait_idle(int timeout_ms);

 private:
  struct Held {
    std::vector<uint8_t> original;
    CachedRewrite rewrite;
  };
  enum class Seen : uint8_t { kQueued, kRewritten, kLoaded };

  void thread_main();
  void run(uint64_t cpu0);  // cpu0: the thread's CPU time when it started
  void drop_stale();
  bool ready() const;
  bool next(std::string& name);
  void follow_loaded(std::vector<std::string> loaded);
  void rewrite_one(const std::string& name);
  std::vector<std::string> references(std::span<const uint8_t> bytes) const;
  void enqueue(const std::vector<std::string>& names, bool front);

  // Only the background thread touches these.
  Index index_;
  FirstClass first_class_;
  ClassPath class_path_;
  Selected selected_;
  Produce produce_;
  size_t speculative_lead_;
  std::chrono::milliseconds forget_after_;
  struct Queued {
    std::string name;
    // Named by a class rewritten here rather than by one that loaded: a guess two steps
    // ahead, taken only while fewer than speculative_lead_ rewrites wait unused.
    bool speculative = false;
  };
  std::deque<Queued> queue_;
  std::unordered_map<std::string, Seen> seen_;
  std::unordered_map<std::string, std::vector<std::string>> references_;

  // Shared with the hooks, under mu_.
  mutable std::mutex mu_;
  std::condition_variable wake_;  // the thread: something to do
  std::condition_variable made_;  // the hooks: a rewrite finished
  std::vector<std::string> loaded_;
  std::unordered_map<std::string, Held> held_;
  uint64_t held_bytes_ = 0;
  std::string in_progress_;
  bool quit_ = false;
  bool idle_ = false;     // the thread is waiting with nothing to do
  bool guessing_ = true;  // false from a forgetting until the next class loads
  AheadStats stats_;
  std::thread thread_;
};

}  // namespace duplex::agent
