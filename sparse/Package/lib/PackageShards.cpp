//===- PackageShards.cpp - The shards of a package's layers ---------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//
//
// A sharded layer is stored as consecutive package layers of one name, one
// per shard (docs/Package.md, "Shards"): their consistency, grouping, and the
// reduction of a package to one rank's shards.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/Package.h"

#include <string>

namespace spperm {

std::vector<LayerGroup> groupShards(const std::vector<PackageLayer> &layers) {
  std::vector<LayerGroup> groups;
  for (size_t i = 0; i < layers.size();) {
    // The shards of a layer follow each other under its name (one alone
    // where a rank's package holds only its own).
    LayerGroup g;
    g.first = i;
    g.count = 1;
    while (layers[i].isShard() && g.first + g.count < layers.size() &&
           layers[g.first + g.count].name == layers[i].name)
      ++g.count;
    groups.push_back(g);
    i += g.count;
  }
  return groups;
}

Status checkShards(const std::vector<PackageLayer> &layers) {
  auto quoted = [](const std::string &name) { return "'" + name + "'"; };
  for (size_t i = 0; i < layers.size();) {
    const PackageLayer &first = layers[i];
    const ShardInfo &s = first.shard;
    if (!first.isShard()) {
      if (s.count != 1 || s.index != 0)
        return Status::error("layer " + quoted(first.name) +
                             ": a shard count must be at least 2");
      for (size_t j = i + 1; j < layers.size(); ++j)
        if (layers[j].name == first.name)
          return Status::error("two layers are named " + quoted(first.name));
      ++i;
      continue;
    }
    const size_t count = static_cast<size_t>(s.count);
    if (s.index != 0)
      return Status::error("layer " + quoted(first.name) + ": shard " +
                           std::to_string(s.index) +
                           " comes first; shards follow each other from 0");
    if (i + count > layers.size())
      return Status::error("layer " + quoted(first.name) + " has " +
                           std::to_string(layers.size() - i) + " of its " +
                           std::to_string(count) + " shards");
    int32_t next = 0;
    for (size_t j = 0; j < count; ++j) {
      const PackageLayer &l = layers[i + j];
      const ShardInfo &t = l.shard;
      const std::string where = "layer " + quoted(first.name) + ", shard " +
                                std::to_string(j);
      if (l.name != first.name || t.index != static_cast<int32_t>(j) ||
          t.count != s.count)
        return Status::error(where + ": the shards of a layer follow each "
                                     "other, numbered 0 to " +
                             std::to_string(count - 1) + " (found " +
                             quoted(l.name) + " shard " +
                             std::to_string(t.index) + " of " +
                             std::to_string(t.count) + ")");
      if (t.rows != s.rows || l.matrix.cols != first.matrix.cols ||
          l.k != first.k)
        return Status::error(where + ": rows, columns and K differ from "
                                     "shard 0's");
      if (l.sourcePath != first.sourcePath ||
          l.sourceSha256 != first.sourceSha256 ||
          formatValuesSpec(l.values) != formatValuesSpec(first.values) ||
          l.sourceRows != first.sourceRows)
        return Status::error(where + ": its source (path, sha256, values, "
                                     "rows) differs from shard 0's");
      if (t.rowBegin != next || t.rowEnd <= t.rowBegin ||
          t.rowEnd - t.rowBegin != l.matrix.rows)
        return Status::error(where + ": rows [" + std::to_string(t.rowBegin) +
                             ", " + std::to_string(t.rowEnd) +
                             ") are empty, do not continue shard " +
                             std::to_string(j == 0 ? 0 : j - 1) +
                             ", or are not its " +
                             std::to_string(l.matrix.rows) + " rows");
      next = t.rowEnd;
    }
    if (next != s.rows)
      return Status::error("layer " + quoted(first.name) + ": the shards "
                           "cover rows [0, " + std::to_string(next) +
                           ") of " + std::to_string(s.rows));
    for (size_t j = i + count; j < layers.size(); ++j)
      if (layers[j].name == first.name)
        return Status::error("two layers are named " + quoted(first.name));
    i += count;
  }
  return Status::ok();
}

Status checkSourceRows(const PackageLayer &layer) {
  if (!layer.sourceRows)
    return Status::ok();
  const auto [begin, end] = *layer.sourceRows;
  const int64_t rows = layer.isShard() ? layer.shard.rows : layer.matrix.rows;
  if (begin < 0 || end < begin || end - begin != rows)
    return Status::error("the source's rows [" + std::to_string(begin) + ", " +
                         std::to_string(end) + ") are not the layer's " +
                         std::to_string(rows) + " rows");
  return Status::ok();
}

Status selectShard(Package &package, int32_t rank, int32_t ranks) {
  if (ranks < 1 || rank < 0 || rank >= ranks)
    return Status::error("rank must be in [0, ranks) with ranks >= 1, got "
                         "rank " +
                         std::to_string(rank) + " of " +
                         std::to_string(ranks));
  std::vector<PackageLayer> kept;
  for (const LayerGroup &g : groupShards(package.layers)) {
    PackageLayer &first = package.layers[g.first];
    if (!first.isShard()) {
      kept.push_back(std::move(first));
      continue;
    }
    if (first.shard.count != ranks)
      return Status::error("layer '" + first.name + "' is cut into " +
                           std::to_string(first.shard.count) +
                           " shards, one per rank: it runs on " +
                           std::to_string(first.shard.count) + " ranks, not " +
                           std::to_string(ranks));
    kept.push_back(std::move(package.layers[g.first + rank]));
  }
  package.layers = std::move(kept);
  return Status::ok();
}

} // namespace spperm
