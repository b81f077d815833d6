"""The ten incident scenarios of the synthetic cases (:mod:`benchmarks.worlds.synthetic`).

Each scenario fills a :class:`~benchmarks.worlds.synthetic_world.World` with a mix of metric rows,
log lines, an alert and JSON tool results, names two candidate causes the evidence shows happening
(a deploy, a config push, a failover ...) and, about a third of the time, adds an item that states
one of them as the root cause. Without that item a causal sentence is an over-reach.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta

from benchmarks.worlds.synthetic_templates import Cause
from benchmarks.worlds.synthetic_world import World, percent

STATED_CAUSE_SHARE = 0.35
"""Share of incidents whose evidence states a root cause."""


def _two_hosts(w: World, prefix: str) -> tuple[str, str]:
    first, second = w.rng.sample(range(1, 10), 2)
    return w.host(prefix, first), w.host(prefix, second)


def _deploy(w: World, when: datetime, service: str, version: str, extra: str = "") -> None:
    w.event(when, "deploy-bot", f"rolled out {service} {version}{extra}",
            (f"deploy-bot rolled out {service} {version}", f"{service} {version} was rolled out",
             f"{service} {version} was never rolled out"))


def _push(w: World, when: datetime, config: str, target: str, note: str = "") -> None:
    w.event(when, "deploy-bot", f"pushed {config}{note} to {target}",
            (f"deploy-bot pushed {config} to {target}", f"{config} was pushed to {target}",
             w.rng.choice((f"{config} was never pushed to {target}",
                           f"no config was pushed to {target}"))))


def latency_spike(w: World) -> None:
    """p99 latency of a service jumps after a rollout; a database is slow too."""
    rng = w.rng
    service = w.name(rng.choice(("checkout-api", "search-api", "payments-api", "catalog-api")))
    hot, calm = _two_hosts(w, service)
    version, sha, db = w.version(), w.sha(), w.host("pg-main", rng.randint(1, 3))
    _deploy(w, w.at(-rng.randint(60, 600)), service, version, f" (sha {sha})")
    w.row("host", hot, w.at(rng.randint(20, 90)),
          {"p99_ms": rng.randint(90, 400) * 10, "p50_ms": rng.randint(80, 300),
           "rps": rng.randint(300, 3000)})
    w.row("host", calm, w.at(rng.randint(20, 90)),
          {"p99_ms": rng.randint(90, 400), "p50_ms": rng.randint(20, 80),
           "rps": rng.randint(300, 3000)})
    threshold = rng.choice((300, 500, 800))
    w.alert("HighLatencyP99", service, w.at(rng.randint(30, 120)),
            w.tok("unit_number", f"{threshold} ms"), "ms", threshold)
    slow = rng.randint(120, 600) * 10
    w.log(w.at(rng.randint(0, 60)), "WARN", hot,
          f"slow query on {db} took {w.tok('duration', f'{slow} ms')}")
    w.fact(hot, "slowest query time", "ms", f"{slow} ms", "tool_match", slow)
    replicas = rng.randint(2, 12)
    w.json_item({"service": service, "version": version, "commit": sha,
                 "replicas": int(w.tok("count", str(replicas)))})
    w.fact(service, "version", "version", version, "specific_data")
    w.fact(service, "commit", "ident", sha, "specific_data")
    w.fact(service, "replica count", "count", str(replicas), "specific_data", replicas)
    w.causes = [Cause((f"the rollout of {service} {version}", f"the deploy of {service} {version}"),
                      ("the deploy", "a bad deploy"), f"regression in {service} {version}"),
                Cause((f"the slowness of {db}",), ("a slow database",),
                      f"slow queries on {db}")]
    w.effects = ("latency spike", f"p99 latency spike on {service}", "HighLatencyP99 alert")


def http_5xx_burst(w: World) -> None:
    """An edge host returns 5xx while its upstream refuses connections; the pool was scaled."""
    rng = w.rng
    hot, calm = _two_hosts(w, "edge-lb")
    upstream = w.ipv4(rng.choice((8080, 8443, 9000)))
    w.row("host", hot, w.at(rng.randint(20, 90)),
          {"http_5xx_rate": percent(rng, 12, 65), "rps": rng.randint(500, 5000)})
    w.row("host", calm, w.at(rng.randint(20, 90)),
          {"http_5xx_rate": percent(rng, 0.1, 2), "rps": rng.randint(500, 5000)})
    w.alert("HighErrorRate", hot, w.at(rng.randint(10, 60)), w.tok("percent", "5%"), "percent", 5)
    status = w.tok("http_status", rng.choice(("502", "503", "504")))
    error = rng.choice(("upstream connect error", "connection refused"))
    w.log(w.at(rng.randint(0, 40)), "ERROR", hot,
          f"upstream {upstream} returned {status} error={w.quoted(error)} "
          f"request_id={w.uuid()}")
    w.fact(upstream, "status code", "status", status, "tool_match")
    w.fact(hot, "error", "quoted", error, "tool_match")
    incident = w.ident("INC")
    w.json_item({"incident": incident, "host": hot, "status_class": w.tok("http_class", "5xx"),
                 "top_status": int(status), "opened_at": w.iso(w.at(rng.randint(60, 300)))})
    w.fact(hot, "incident id", "ident", incident, "specific_data")
    before = rng.randint(6, 12)
    after = before - rng.randint(2, 4)
    pool = w.name("edge-pool")
    w.event(w.at(-rng.randint(120, 900)), "autoscaler",
            f"scaled {pool} from {w.tok('count', str(before))} to {after} instances",
            (f"the autoscaler scaled {pool} from {before} to {after} instances",
             f"{pool} was scaled from {before} to {after} instances",
             f"{pool} was never scaled down"))
    w.causes = [Cause((f"the failing upstream {upstream}",), ("a failing upstream",),
                      f"upstream {upstream} refusing connections"),
                Cause((f"the scaling down of {pool}",), ("a smaller pool",),
                      f"{pool} scale-down from {before} to {after} instances")]
    w.effects = ("5xx burst", f"error spike on {hot}", "HighErrorRate alert")


def disk_full(w: World) -> None:
    """A disk fills up: logrotate was skipped and debug logging was switched on."""
    rng = w.rng
    host = w.host(rng.choice(("log-ingest", "pg-replica", "kafka-broker")))
    w.row("host", host, w.at(rng.randint(0, 60)),
          {"disk_used_pct": percent(rng, 93, 99.8), "disk_free_gb": round(rng.uniform(0.5, 14), 1),
           "inode_used_pct": percent(rng, 20, 70)}, extra=f"mount={w.quoted('/var/log')}")
    w.alert("DiskAlmostFull", host, w.at(rng.randint(-300, 30)), w.tok("percent", "90%"),
            "percent", 90)
    w.log(w.at(rng.randint(30, 200)), "ERROR", host,
          f"fluentd write failed error={w.quoted('No space left on device')}")
    w.fact(host, "error", "quoted", "No space left on device", "tool_match")
    size, cleanup = rng.choice((250, 500, 1000)), w.date(-rng.randint(3, 40))
    w.json_item({"volume": f"vol-{rng.getrandbits(32):08x}", "host": host,
                 "size_gb": int(w.tok("unit_number", str(size))), "last_cleanup": cleanup})
    w.fact(host, "volume size", "gb", f"{size} GB", "specific_data", size)
    w.fact(host, "last cleanup date", "date", cleanup, "specific_data")
    w.event(w.at(-rng.randint(3600, 20000)), "cron", f"logrotate skipped on {host} (exit code 1)",
            (f"logrotate skipped its run on {host}", f"the logrotate run on {host} was skipped",
             f"logrotate ran normally on {host}"), level="WARN")
    config = w.ident("cfg")
    _push(w, w.at(-rng.randint(3600, 20000)), config, host, " (log_level=debug)")
    w.causes = [Cause((f"the skipped logrotate run on {host}",), ("a skipped log rotation",),
                      f"logrotate skipped on {host}"),
                Cause((f"the debug logging from {config}",), ("debug logging",),
                      f"debug logging enabled by {config}")]
    w.effects = ("disk exhaustion", f"full disk on {host}", "DiskAlmostFull alert")


def oom_kill(w: World) -> None:
    """A pod is OOM-killed in a loop after a rollout and a batch-size push."""
    rng = w.rng
    deployment = w.name(rng.choice(("feature-svc", "embed-worker", "rank-worker")))
    pod = w.host(deployment)
    limit = rng.choice((4, 8, 16))
    restarts = rng.randint(3, 14)
    w.row("pod", pod, w.at(rng.randint(0, 120)),
          {"mem_used_gb": round(limit * rng.uniform(0.96, 0.995), 2), "restarts": restarts},
          extra=f"reason={w.quoted('OOMKilled')}")
    pid = rng.randint(1000, 40000)
    w.event(w.at(rng.randint(-60, 0)), "kernel", f"Out of memory: killed process {pid} (python) "
            f"in {pod}", (f"the kernel killed process {pid} in {pod}",
                          f"process {pid} in {pod} was killed for running out of memory",
                          f"no process in {pod} was killed"), level="WARN")
    w.alert("KubePodCrashLooping", pod, w.at(rng.randint(60, 300)),
            f"{w.tok('count', '3')} restarts", "count", 3)
    version = w.version()
    w.json_item({"deployment": deployment, "memory_limit_gb": int(w.tok("unit_number", str(limit))),
                 "version": version})
    w.fact(deployment, "memory limit", "gb", f"{limit} GB", "specific_data", limit)
    w.fact(deployment, "version", "version", version, "specific_data")
    _deploy(w, w.at(-rng.randint(300, 3000)), deployment, version)
    config = w.ident("cfg")
    _push(w, w.at(-rng.randint(300, 3000)), config, deployment, " (batch_size=512)")
    w.causes = [Cause((f"the rollout of {deployment} {version}",), ("the new release",),
                      f"memory regression in {deployment} {version}"),
                Cause((f"the batch size raised by {config}",), ("a larger batch size",),
                      f"batch size raised by {config}")]
    w.effects = ("OOM kill loop", f"crash loop of {pod}", "KubePodCrashLooping alert")


def config_push(w: World) -> None:
    """The seed scenario: a config push, and thirty seconds later an error-rate alert."""
    rng = w.rng
    hot, calm = _two_hosts(w, "edge-lb")
    config = w.ident("cfg")
    _push(w, w.at(0), config, hot)
    w.alert("HighErrorRate", hot, w.at(30), w.tok("percent", "5%"), "percent", 5)
    w.row("host", hot, w.at(rng.randint(30, 60)),
          {"http_5xx_rate": percent(rng, 15, 70), "p99_ms": rng.randint(400, 2500)})
    w.row("host", calm, w.at(rng.randint(30, 60)),
          {"http_5xx_rate": percent(rng, 0.1, 1.5), "p99_ms": rng.randint(40, 200)})
    if rng.random() < 0.6:
        service = w.name(rng.choice(("checkout", "search", "login")) + "-web")
        replicas = rng.randint(2, 9)
        version = w.version()
        w.json_item({"service": service, "version": version,
                     "replicas": int(w.tok("count", str(replicas)))})
        w.fact(service, "version", "version", version, "specific_data")
        w.fact(service, "replica count", "count", str(replicas), "specific_data", replicas)
    else:
        status = w.tok("http_status", "503")
        backend = w.ipv6(443)
        w.log(w.at(rng.randint(31, 50)), "ERROR", hot, f"backend {backend} answered {status}")
        w.fact(backend, "status code", "status", status, "tool_match")
    w.event(w.at(-rng.randint(120, 900)), "certbot", f"renewed certificate on {hot}",
            (f"certbot renewed the certificate on {hot}",
             f"the certificate on {hot} was renewed", f"the certificate on {hot} was not renewed"))
    w.causes = [Cause((f"the push of {config}", f"the config push {config}", config),
                      ("a config push", "the config push"), f"config push {config} to {hot}"),
                Cause((f"the certificate renewal on {hot}",), ("a certificate renewal",),
                      f"certificate renewal on {hot}")]
    w.effects = ("outage", f"5xx burst on {hot}", "HighErrorRate alert")


def deploy_regression(w: World) -> None:
    """A rollout raises the error rate; a feature flag was flipped too."""
    rng = w.rng
    service = w.name(rng.choice(("cart-svc", "orders-api", "profile-svc")))
    hot, calm = _two_hosts(w, service)
    previous, version, sha = w.version(2), w.version(3), w.sha()
    replicas = rng.randint(4, 24)
    _deploy(w, w.at(-rng.randint(60, 400)), service, version,
            f" (sha {sha}) to {w.tok('count', str(replicas))} pods")
    w.row("host", hot, w.at(rng.randint(10, 100)),
          {"error_rate": round(rng.uniform(0.05, 0.45), 3), "p99_ms": rng.randint(300, 1500)})
    w.row("host", calm, w.at(rng.randint(10, 100)),
          {"error_rate": round(rng.uniform(0.001, 0.01), 3), "p99_ms": rng.randint(60, 250)})
    status = w.tok("http_status", "500")
    w.log(w.at(rng.randint(0, 90)), "ERROR", hot, f"request failed status={status} "
          f"error={w.quoted('NullPointerException in CartService')} trace_id={w.uuid()}")
    w.fact(hot, "status code", "status", status, "tool_match")
    w.fact(hot, "error", "quoted", "NullPointerException in CartService", "tool_match")
    w.alert("HighErrorRate", service, w.at(rng.randint(30, 150)), w.tok("percent", "2%"),
            "percent", 2)
    w.json_item({"service": service, "version": version, "previous_version": previous,
                 "replicas": replicas, "commit": sha})
    w.fact(service, "version", "version", version, "specific_data")
    w.fact(service, "replica count", "count", str(replicas), "specific_data", replicas)
    w.fact(service, "commit", "ident", sha, "specific_data")
    flag = w.ident("flag")
    w.event(w.at(-rng.randint(60, 900)), "flag-service", f"enabled {flag} for {service}",
            (f"flag-service enabled {flag} for {service}", f"{flag} was enabled for {service}",
             f"{flag} was never enabled for {service}"))
    w.causes = [Cause((f"the rollout of {service} {version}",), ("the new release", "the deploy"),
                      f"bug in {service} {version}"),
                Cause((f"enabling {flag}",), ("a feature flag change",), f"{flag} enabled")]
    w.effects = ("error spike", f"regression in {service}", "HighErrorRate alert")


def cert_expiry(w: World) -> None:
    """A gateway's certificate expires; a config push happened the same day."""
    rng = w.rng
    gateway = w.host("api-gw")
    expiry = w.date(-rng.randint(0, 2))
    w.json_item({"host": gateway, "cn": rng.choice(("api.example.com", "pay.example.net")),
                 "not_after": expiry, "issuer": "R3"})
    w.fact(gateway, "certificate expiry date", "date", expiry, "specific_data")
    w.log(w.at(rng.randint(0, 60)), "ERROR", gateway, f"TLS handshake failed with client "
          f"{w.ipv6(443)} error={w.quoted('certificate has expired')}")
    w.fact(gateway, "error", "quoted", "certificate has expired", "tool_match")
    w.row("host", gateway, w.at(rng.randint(30, 200)),
          {"tls_handshake_errors": rng.randint(200, 6000), "http_5xx_rate": percent(rng, 8, 60)})
    w.alert("CertificateExpired", gateway, w.at(rng.randint(0, 120)), "0 days left")
    config = w.ident("cfg")
    _push(w, w.at(-rng.randint(600, 7200)), config, gateway)
    w.causes = [Cause((f"the expired certificate on {gateway}",), ("an expired certificate",),
                      f"expired certificate on {gateway}"),
                Cause((f"the push of {config} to {gateway}",), ("a config push",),
                      f"config push {config} to {gateway}")]
    w.effects = ("outage", f"TLS failure on {gateway}", "CertificateExpired alert")


def db_failover(w: World) -> None:
    """A Postgres primary fails over after I/O errors."""
    rng = w.rng
    cluster = w.name(rng.choice(("orders-db", "billing-db", "users-db")))
    old, new = _two_hosts(w, "pg-main")
    address = w.ipv4(5432)
    w.event(w.at(rng.randint(5, 40)), "patroni",
            f"{old} lost the leader lock, promoted {new} at {address}",
            (f"patroni promoted {new} to primary of {cluster}",
             f"{cluster} failed over from {old} to {new}", f"{cluster} did not fail over"),
            level="WARN")
    w.fact(new, "address", "address", address, "tool_match")
    took = f"{rng.randint(4, 59)}s"
    w.log(w.at(rng.randint(45, 100)), "INFO", "patroni",
          f"failover of {cluster} completed in {w.tok('duration', took)}")
    w.fact(cluster, "failover duration", "duration", took, "tool_match")
    w.row("host", new, w.at(rng.randint(100, 200)),
          {"connections": rng.randint(50, 900), "replication_lag_ms": rng.randint(0, 400),
           "cpu_pct": percent(rng, 30, 95)})
    w.alert("PostgresPrimaryDown", old, w.at(rng.randint(0, 30)), "60s")
    ipv6, timeline = w.ipv6(5432), rng.randint(2, 30)
    w.json_item({"cluster": cluster, "primary": new, "address": ipv6, "timeline": timeline})
    w.fact(cluster, "primary", "ident", new, "specific_data")
    w.fact(cluster, "timeline", "count", str(timeline), "specific_data", timeline)
    w.event(w.at(-rng.randint(30, 600)), "kernel", f"{old}: I/O error on /dev/nvme0n1",
            (f"{old} logged I/O errors on /dev/nvme0n1", f"I/O errors were logged on {old}",
             f"{old} logged no I/O errors"), level="ERROR")
    w.causes = [Cause((f"the failover to {new}",), ("the failover",), f"failover to {new}"),
                Cause((f"the I/O failure on {old}",), ("a disk fault",), f"I/O errors on {old}")]
    w.effects = ("outage", f"write outage on {cluster}", "PostgresPrimaryDown alert")


def gpu_node_loss(w: World) -> None:
    """A GPU node falls off the bus and a training job fails; its driver was just upgraded."""
    rng = w.rng
    node, spare = _two_hosts(w, "gpu-node")
    error = f"Xid {rng.choice((48, 79, 94))}: GPU has fallen off the bus"
    w.event(w.at(0), "kubelet", f"{node} NodeNotReady error={w.quoted(error)}",
            (f"kubelet marked {node} NotReady", f"{node} was marked NotReady",
             f"{node} stayed Ready throughout"), level="WARN")
    w.fact(node, "error", "quoted", error, "tool_match")
    w.row("node", node, w.at(rng.randint(30, 90)),
          {"gpu_util_pct": 0, "gpu_mem_used_gb": 0, "ecc_errors": rng.randint(3, 60)})
    w.row("node", spare, w.at(rng.randint(30, 90)),
          {"gpu_util_pct": percent(rng, 80, 99.5), "gpu_mem_used_gb": round(rng.uniform(30, 79), 1),
           "ecc_errors": 0})
    job, gpus = w.uuid(), rng.choice((4, 8, 16))
    age = f"{rng.randint(5, 59)}m{rng.randint(0, 59):02d}s"
    w.json_item({"job_id": job, "status": "Failed", "gpus": int(w.tok("count", str(gpus))),
                 "node": node, "checkpoint_age": w.tok("duration", age)})
    w.fact(f"job {job}", "GPU count", "count", str(gpus), "specific_data", gpus)
    w.fact(f"job {job}", "checkpoint age", "duration", age, "specific_data")
    w.alert("GPUNodeDown", node, w.at(rng.randint(20, 120)), "2m")
    w.log(w.at(rng.randint(120, 400)), "INFO", "scheduler", f"rescheduled job {job} to {spare} "
          f"at {w.ipv6(8443)}")
    driver = w.tok("version",
                   f"v{rng.choice((535, 550))}.{rng.randint(40, 120)}.{rng.randint(1, 9)}")
    w.event(w.at(-rng.randint(600, 5000)), "node-updater",
            f"upgraded NVIDIA driver on {node} to {driver}",
            (f"node-updater upgraded the driver on {node} to {driver}",
             f"the driver on {node} was upgraded to {driver}",
             f"the driver on {node} was not upgraded"))
    w.causes = [Cause((f"the loss of {node}", f"the GPU failure on {node}"),
                      ("a GPU node failure",), f"GPU fell off the bus on {node}"),
                Cause((f"the driver upgrade on {node}",), ("a driver upgrade",),
                      f"driver upgrade to {driver} on {node}")]
    w.effects = ("job failure", f"failure of job {job}", "GPUNodeDown alert")


def queue_backlog(w: World) -> None:
    """A queue backs up after a consumer-group rebalance and a consumer deploy."""
    rng = w.rng
    queue = w.name(rng.choice(("orders-events", "billing-events", "clicks-stream")))
    group = w.name(queue.split("-")[0] + "-consumer")
    depth = rng.randint(12000, 90000)
    age = f"{rng.randint(3, 50)}m{rng.randint(0, 59):02d}s"
    w.row("queue", queue, w.at(rng.randint(0, 120)),
          {"depth": depth, "producer_rps": rng.randint(600, 4000),
           "consumer_rps": rng.randint(20, 400)}, extra=f"oldest_age={w.tok('duration', age)}")
    w.fact(queue, "oldest message age", "duration", age, "tool_match")
    w.alert("QueueBacklogHigh", queue, w.at(rng.randint(60, 240)),
            w.tok("count", "10000"), "count", 10000)
    left = rng.randint(2, 5)
    w.event(w.at(-rng.randint(60, 600)), w.host(group), f"consumer group {group} rebalanced, "
            f"{left} members left", (f"{left} members left consumer group {group}",
                                     f"consumer group {group} was rebalanced",
                                     f"consumer group {group} never rebalanced"), level="WARN")
    partitions, members = rng.choice((12, 24, 48)), rng.randint(1, 6)
    w.json_item({"consumer_group": group, "lag": depth, "partitions": partitions,
                 "members": int(w.tok("count", str(members)))})
    w.fact(group, "partition count", "count", str(partitions), "specific_data", partitions)
    w.fact(group, "member count", "count", str(members), "specific_data", members)
    version = w.version()
    _deploy(w, w.at(-rng.randint(600, 3000)), group, version)
    w.causes = [Cause((f"the rebalance of {group}",), ("a consumer rebalance",),
                      f"consumer group {group} rebalance"),
                Cause((f"the deploy of {group} {version}",), ("the consumer deploy",),
                      f"{group} {version} consuming slowly")]
    w.effects = ("queue backlog", f"backlog on {queue}", "QueueBacklogHigh alert")


SCENARIOS: dict[str, Callable[[World], None]] = {
    build.__name__: build for build in (
        latency_spike, http_5xx_burst, disk_full, oom_kill, config_push, deploy_regression,
        cert_expiry, db_failover, gpu_node_loss, queue_backlog)}
"""Scenario name -> builder."""


def build_world(scenario: str, rng: random.Random) -> World:
    """The evidence of one incident of ``scenario``, items in a shuffled order.

    Raises:
        ValueError: an unknown scenario, naming the known ones.
    """
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario must be one of {sorted(SCENARIOS)}, got {scenario!r}")
    start = datetime(2024, 1, 1) + timedelta(days=rng.randint(0, 700),
                                             seconds=rng.randint(3600, 22 * 3600))
    world = World(scenario, rng, start)
    SCENARIOS[scenario](world)
    if rng.random() < STATED_CAUSE_SHARE:
        cause = world.causes[0] if rng.random() < 0.7 else world.causes[1]
        world.state_cause(cause, world.at(rng.randint(300, 1500)))
    rng.shuffle(world.items)
    return world
