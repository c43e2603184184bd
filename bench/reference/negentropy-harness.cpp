// minca's harness for the reference C++ Negentropy (https://github.com/hoytech/negentropy): it
// runs the reference's Vector and BTreeMem storages on the sets of
// bench/src/benchmarks/negentropy.ts. This file is ours; the reference is only #included from a
// checkout of it, compiled by bench/src/negentropy-reference.ts as
//   g++ -O2 -std=c++20 -I<checkout>/cpp negentropy-harness.cpp -lcrypto
//
// Usage: negentropy-harness N DIFFER RUNS
//
// Item i, for i in 0 .. N + DIFFER/2 - 1, is (1700000000 + (i*2654435761 mod N),
// SHA-256("bench/" + i)). Every stride-th item by index, stride = floor((N + DIFFER/2) / DIFFER),
// for the first DIFFER multiples, is on one side only: alternately the client's (k even) and the
// server's (k odd), so each side holds N. i*2654435761 < 2^53 for any N the bench uses, so
// JavaScript's float arithmetic there and the 64-bit integers here agree.
//
// For each storage it prints one line,
//   {"storage":"BTreeMem","runs":[{"buildMs":..,"reconcileMs":..,"roundTrips":..,"up":..,
//     "down":..,"have":..,"need":..}]}
// where buildMs covers inserting every item into both sides and sealing them, and reconcileMs a
// whole session (the client's initiate and reconcile calls and the server's reconcile calls,
// with no frame size limit, as minca's bench runs them), the median of 3 after one untimed
// session whose bytes and differences are the ones reported.
#include <openssl/sha.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "negentropy.h"
#include "negentropy/storage/BTreeMem.h"
#include "negentropy/storage/Vector.h"

namespace {

enum class Holder { Both, Client, Server };

struct Params {
    uint64_t n;
    uint64_t differ;
};

uint64_t itemCount(const Params &p) { return p.n + p.differ / 2; }

uint64_t timestampOf(uint64_t i, uint64_t n) {
    return 1700000000ULL + (i * 2654435761ULL) % n;
}

Holder holderOf(uint64_t i, const Params &p) {
    uint64_t stride = itemCount(p) / p.differ;
    if (i % stride != 0) return Holder::Both;
    uint64_t k = i / stride;
    if (k >= p.differ) return Holder::Both;
    return k % 2 == 0 ? Holder::Client : Holder::Server;
}

/** Every item's id, 32 bytes each, made before any timing as the TypeScript bench does. */
std::string makeIds(uint64_t count) {
    std::string all(count * 32, '\0');
    for (uint64_t i = 0; i < count; i++) {
        std::string input = "bench/" + std::to_string(i);
        SHA256(reinterpret_cast<const unsigned char *>(input.data()), input.size(),
               reinterpret_cast<unsigned char *>(&all[i * 32]));
    }
    return all;
}

double msSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

struct Run {
    double buildMs = 0;
    double reconcileMs = 0;
    uint64_t roundTrips = 0;
    uint64_t up = 0;
    uint64_t down = 0;
    uint64_t have = 0;
    uint64_t need = 0;
};

/** Inserts into both sides and seals them; gives the time taken. */
template <typename Storage>
double build(Storage &client, Storage &server, const Params &p, const std::string &ids) {
    auto start = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < itemCount(p); i++) {
        Holder at = holderOf(i, p);
        uint64_t ts = timestampOf(i, p.n);
        std::string_view id(ids.data() + i * 32, 32);
        if (at != Holder::Server) client.insert(ts, id);
        if (at != Holder::Client) server.insert(ts, id);
    }
    client.seal();
    server.seal();
    return msSince(start);
}

/** One whole session, counted into `run`; a fresh responder per message, as minca's bench. */
template <typename Storage>
void session(Storage &client, Storage &server, Run &run) {
    negentropy::Negentropy<Storage> initiator(client, 0);
    std::string msg = initiator.initiate();
    while (true) {
        run.up += msg.size();
        run.roundTrips++;
        negentropy::Negentropy<Storage> responder(server, 0);
        std::string reply = responder.reconcile(msg);
        run.down += reply.size();
        std::vector<std::string> have, need;
        auto next = initiator.reconcile(reply, have, need);
        run.have += have.size();
        run.need += need.size();
        if (!next) break;
        msg = std::move(*next);
    }
}

template <typename Storage>
Run measure(const Params &p, const std::string &ids) {
    Storage client, server;
    Run run;
    run.buildMs = build(client, server, p, ids);
    session(client, server, run);
    if (run.have != p.differ / 2 || run.need != p.differ / 2) {
        throw negentropy::err("found " + std::to_string(run.have) + "/" +
                              std::to_string(run.need) + " differences, not " +
                              std::to_string(p.differ / 2));
    }
    std::vector<double> times;
    for (int t = 0; t < 3; t++) {
        Run scratch;
        auto start = std::chrono::steady_clock::now();
        session(client, server, scratch);
        times.push_back(msSince(start));
    }
    std::sort(times.begin(), times.end());
    run.reconcileMs = times[1];
    return run;
}

void print(const char *storage, const std::vector<Run> &runs) {
    std::printf("{\"storage\":\"%s\",\"runs\":[", storage);
    for (size_t r = 0; r < runs.size(); r++) {
        const Run &x = runs[r];
        std::printf(
            "%s{\"buildMs\":%.3f,\"reconcileMs\":%.3f,\"roundTrips\":%llu,\"up\":%llu,"
            "\"down\":%llu,\"have\":%llu,\"need\":%llu}",
            r ? "," : "", x.buildMs, x.reconcileMs, (unsigned long long)x.roundTrips,
            (unsigned long long)x.up, (unsigned long long)x.down, (unsigned long long)x.have,
            (unsigned long long)x.need);
    }
    std::printf("]}\n");
}

uint64_t parse(const char *arg, const char *what) {
    char *end = nullptr;
    unsigned long long v = std::strtoull(arg, &end, 10);
    if (!*arg || *end || arg[0] == '-') throw negentropy::err(std::string("bad ") + what);
    return v;
}

}  // namespace

int main(int argc, char **argv) {
    try {
        if (argc != 4) throw negentropy::err("usage: negentropy-harness N DIFFER RUNS");
        Params p{parse(argv[1], "N"), parse(argv[2], "DIFFER")};
        uint64_t runs = parse(argv[3], "RUNS");
        if (p.n == 0 || p.differ == 0 || p.differ % 2 != 0 || p.differ > p.n || runs == 0)
            throw negentropy::err("expected N > 0, an even DIFFER in 2..N and RUNS > 0");
        std::string ids = makeIds(itemCount(p));
        // The storages take turns, so load on the machine falls on each alike.
        std::vector<Run> vector, tree;
        for (uint64_t r = 0; r < runs; r++) {
            vector.push_back(measure<negentropy::storage::Vector>(p, ids));
            tree.push_back(measure<negentropy::storage::BTreeMem>(p, ids));
        }
        print("Vector", vector);
        print("BTreeMem", tree);
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "negentropy-harness: %s\n", e.what());
        return 1;
    }
}
