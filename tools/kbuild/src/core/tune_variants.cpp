// Variant generation for tune_space.h: grid, random and evolve. Randomness
// is std::mt19937_64 (whose sequence the standard fixes) reduced with `%`
// and a hand-written shuffle, because std::uniform_int_distribution and
// std::shuffle differ between standard libraries and a seed must give the
// same variants on every machine.
#include <algorithm>
#include <optional>
#include <random>
#include <utility>

#include "core/tune_space.h"

namespace kb {

namespace {

// A point of the space: one value index per parameter.
using Point = std::vector<size_t>;

class Points {
 public:
  explicit Points(const TuneSpace& space) : space_(space), grid_(space.GridSize()) {
    for (const auto& p : space.params) codes_.push_back(ParamValueCodes(p));
  }

  uint64_t grid() const { return grid_; }

  bool Valid(const Point& point) const {
    std::vector<int64_t> codes(point.size());
    for (size_t i = 0; i < point.size(); ++i) codes[i] = codes_[i][point[i]];
    return std::all_of(space_.constraints.begin(), space_.constraints.end(),
                       [&](const TuneConstraint& c) { return c.expr.Holds(codes); });
  }

  TuneVariant Variant(const Point& point) const {
    TuneVariant variant;
    for (size_t i = 0; i < point.size(); ++i) {
      variant.values.emplace_back(space_.params[i].name, space_.params[i].values[point[i]]);
    }
    variant.id = VariantId(variant);
    return variant;
  }

  // The point `variant` names; nothing when it is not one of this space.
  std::optional<Point> Find(const TuneVariant& variant) const {
    if (variant.values.size() != space_.params.size()) return std::nullopt;
    Point point;
    for (size_t i = 0; i < space_.params.size(); ++i) {
      const auto& values = space_.params[i].values;
      const auto found = std::find(values.begin(), values.end(), variant.values[i].second);
      if (variant.values[i].first != space_.params[i].name || found == values.end()) {
        return std::nullopt;
      }
      point.push_back(found - values.begin());
    }
    return point;
  }

  // Grid position `index` (0 <= index < grid()), the last parameter fastest.
  Point At(uint64_t index) const {
    Point point(space_.params.size());
    for (size_t i = point.size(); i-- > 0;) {
      const size_t n = space_.params[i].values.size();
      point[i] = index % n;
      index /= n;
    }
    return point;
  }

 private:
  const TuneSpace& space_;
  uint64_t grid_;
  std::vector<std::vector<int64_t>> codes_;
};

// Fisher-Yates with a fixed reduction, the same on every standard library.
template <typename T>
void Shuffle(std::vector<T>& items, std::mt19937_64& rng) {
  for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[rng() % i]);
}

// Points one step from `point`: `changes` parameters (1 or 2) each moved to
// an adjacent value of its list.
std::vector<Point> Neighbours(const Point& point, const TuneSpace& space, int changes) {
  std::vector<Point> out;
  const auto moves = [&](size_t i) {
    std::vector<size_t> to;
    if (point[i] > 0) to.push_back(point[i] - 1);
    if (point[i] + 1 < space.params[i].values.size()) to.push_back(point[i] + 1);
    return to;
  };
  for (size_t i = 0; i < point.size(); ++i) {
    for (size_t a : moves(i)) {
      Point p = point;
      p[i] = a;
      if (changes == 1) {
        out.push_back(p);
        continue;
      }
      for (size_t j = i + 1; j < point.size(); ++j) {
        for (size_t b : moves(j)) {
          Point q = p;
          q[j] = b;
          out.push_back(q);
        }
      }
    }
  }
  return out;
}

}  // namespace

std::vector<TuneVariant> GridVariants(const TuneSpace& space, size_t limit) {
  const Points points(space);
  std::vector<TuneVariant> out;
  for (uint64_t i = 0; i < points.grid() && out.size() < limit; ++i) {
    const Point point = points.At(i);
    if (points.Valid(point)) out.push_back(points.Variant(point));
  }
  return out;
}

std::vector<TuneVariant> RandomVariants(const TuneSpace& space, size_t count, uint64_t seed,
                                        const std::set<std::string>& exclude) {
  const Points points(space);
  std::mt19937_64 rng(seed);
  std::vector<bool> tried(points.grid(), false);
  std::vector<TuneVariant> out;
  const auto take = [&](uint64_t index) {
    tried[index] = true;
    const Point point = points.At(index);
    if (!points.Valid(point)) return;
    TuneVariant variant = points.Variant(point);
    if (!exclude.contains(variant.id)) out.push_back(std::move(variant));
  };
  // Draws first; when they keep missing (few valid or new points left), the
  // untried points are listed and shuffled so the result is still complete.
  const uint64_t draws = std::min<uint64_t>(points.grid(), 32 * static_cast<uint64_t>(count) + 256);
  for (uint64_t d = 0; d < draws && out.size() < count; ++d) {
    const uint64_t index = rng() % points.grid();
    if (!tried[index]) take(index);
  }
  if (out.size() >= count) return out;
  std::vector<uint64_t> untried;
  for (uint64_t i = 0; i < points.grid(); ++i) {
    if (!tried[i]) untried.push_back(i);
  }
  Shuffle(untried, rng);
  for (size_t i = 0; i < untried.size() && out.size() < count; ++i) take(untried[i]);
  return out;
}

std::vector<TuneVariant> EvolveVariants(const TuneSpace& space,
                                        const std::vector<TuneVariant>& best, size_t count,
                                        uint64_t seed, const std::set<std::string>& exclude) {
  const Points points(space);
  std::mt19937_64 rng(seed);
  std::vector<std::vector<Point>> queues;  // per parent, the next neighbour last
  for (const auto& parent : best) {
    const auto point = points.Find(parent);
    if (!point) continue;
    std::vector<Point> one = Neighbours(*point, space, 1);
    std::vector<Point> two = Neighbours(*point, space, 2);
    Shuffle(one, rng);
    Shuffle(two, rng);
    two.insert(two.end(), one.rbegin(), one.rend());  // popped from the back: one first
    queues.push_back(std::move(two));
  }
  std::set<std::string> taken = exclude;
  std::vector<TuneVariant> out;
  bool any_left = true;
  while (out.size() < count && any_left) {
    any_left = false;
    for (auto& queue : queues) {
      if (out.size() >= count) break;
      while (!queue.empty()) {
        const Point point = std::move(queue.back());
        queue.pop_back();
        if (!points.Valid(point)) continue;
        TuneVariant variant = points.Variant(point);
        if (!taken.insert(variant.id).second) continue;
        out.push_back(std::move(variant));
        break;
      }
      any_left = any_left || !queue.empty();
    }
  }
  if (out.size() < count) {
    // The neighbourhood is spent: explore elsewhere rather than stall.
    auto more = RandomVariants(space, count - out.size(), seed ^ 0x9e3779b97f4a7c15ull, taken);
    std::move(more.begin(), more.end(), std::back_inserter(out));
  }
  return out;
}

std::optional<TuneVariant> RepeatMove(const TuneSpace& space, const TuneVariant& from,
                                      const TuneVariant& to, const std::set<std::string>& exclude) {
  const Points points(space);
  const auto start = points.Find(from);
  const auto end = points.Find(to);
  if (!start || !end || *start == *end) return std::nullopt;
  Point next = *end;
  for (size_t i = 0; i < next.size(); ++i) {
    // (end - start) more places; a size_t that wraps below 0 fails the bound too.
    next[i] = (*end)[i] + ((*end)[i] - (*start)[i]);
    if (next[i] >= space.params[i].values.size()) return std::nullopt;
  }
  if (!points.Valid(next)) return std::nullopt;
  TuneVariant variant = points.Variant(next);
  if (exclude.count(variant.id)) return std::nullopt;
  return variant;
}

}  // namespace kb
