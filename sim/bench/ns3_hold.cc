// ns3_hold.cc - the hold model on ns-3's simulator core, the reference that
// `mtcsim bench engine` measures itself against in the same run.
//
// Hold model: fill the queue with N events at exponential times (mean M
// simulated seconds); each event, when it fires, schedules one new event at
// now + Exp(mean M). The pending count stays N. We time only the steady
// phase (E events after the fill), as mtcsim does. Written in ns-3's own
// idiom: Simulator::Schedule of a free function (one EventImpl allocation
// per event), an ExponentialRandomVariable stream, the chosen scheduler.
//
// usage: ns3-hold [--pending N] [--events E] [--mean-s M]
//                 [--scheduler ns3::MapScheduler|ns3::HeapScheduler|...]
// prints `name value unit` lines.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ns3/core-module.h"

using namespace ns3;

namespace {
Ptr<ExponentialRandomVariable> g_exp;
uint64_t g_left = 0;

void
Hold()
{
    if (--g_left == 0) {
        Simulator::Stop();
        return;
    }
    Simulator::Schedule(NanoSeconds((int64_t)g_exp->GetValue()), &Hold);
}

int
Usage(const char* bad)
{
    std::fprintf(stderr,
                 "ns3-hold: bad argument '%s'\nusage: ns3-hold [--pending N] [--events E] "
                 "[--mean-s M] [--scheduler TYPE]\n",
                 bad);
    return 2;
}
} // namespace

int
main(int argc, char** argv)
{
    uint64_t pending = 1000000, events = 2000000;
    double mean_s = 86400.0;
    std::string sched = "ns3::MapScheduler";
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (i + 1 >= argc)
            return Usage(a);
        const char* v = argv[++i];
        char* end = nullptr;
        if (!std::strcmp(a, "--pending")) {
            pending = std::strtoull(v, &end, 10);
            if (*end || pending == 0)
                return Usage(v);
        } else if (!std::strcmp(a, "--events")) {
            events = std::strtoull(v, &end, 10);
            if (*end || events == 0)
                return Usage(v);
        } else if (!std::strcmp(a, "--mean-s")) {
            mean_s = std::strtod(v, &end);
            if (*end || !(mean_s > 0))
                return Usage(v);
        } else if (!std::strcmp(a, "--scheduler")) {
            sched = v;
        } else {
            return Usage(a);
        }
    }
    ObjectFactory f;
    f.SetTypeId(sched);
    Simulator::SetScheduler(f);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    g_exp = CreateObject<ExponentialRandomVariable>();
    g_exp->SetAttribute("Mean", DoubleValue(mean_s * 1e9));
    g_exp->SetAttribute("Bound", DoubleValue(0.0));

    auto t0 = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < pending; i++)
        Simulator::Schedule(NanoSeconds((int64_t)g_exp->GetValue()), &Hold);
    auto t1 = std::chrono::steady_clock::now();
    g_left = events;
    Simulator::Run();
    auto t2 = std::chrono::steady_clock::now();
    double fill = std::chrono::duration<double>(t1 - t0).count();
    double run = std::chrono::duration<double>(t2 - t1).count();
    std::printf("ns3_scheduler %s name\n", sched.c_str());
    std::printf("ns3_hold_pending %llu events\n", (unsigned long long)pending);
    std::printf("ns3_hold_fill_s %.3f s\n", fill);
    std::printf("ns3_hold_run_s %.3f s\n", run);
    std::printf("ns3_hold_events_per_s %.0f events/s\n", (double)events / run);
    Simulator::Destroy();
    return 0;
}
