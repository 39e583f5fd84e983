/** Resources per section: CPU of each process and of the machine, peak RSS, TCP counters. */
import os from 'node:os';
import type { TcpCounters } from '../infra';
import { markdownTable } from '../stats';

/** What a section of bench/run.ts measured of the processes while it ran. */
export interface SectionResources {
  wallSeconds: number;
  cpuSeconds: Record<string, number>;
  rssPeakMb: Record<string, number>;
  tcp: TcpCounters;
}

export function renderResources(sections: Record<string, { resources: SectionResources }>, peak: Record<string, number>): string {
  const rows = Object.entries(sections).map(([name, s]) => {
    const r = s.resources;
    const pct = (cpu: number) => (100 * cpu) / r.wallSeconds;
    const c = r.cpuSeconds;
    const others = c.machine - c.irq - c.server - c.worker - c.temporal - c.bench;
    return [
      name,
      r.wallSeconds,
      pct(c.server),
      pct(c.worker),
      pct(c.temporal),
      pct(c.bench),
      pct(c.irq),
      pct(others),
      pct(c.machine),
      r.rssPeakMb.server,
      r.tcp.listenOverflows,
      r.tcp.synRetrans,
    ];
  });
  return [
    '## Resources per section (CPU as % of one core over the section, from /proc; machine = all cores)',
    markdownTable(
      [
        'section',
        'wall s',
        'server %',
        'worker %',
        'temporal %',
        'bench client %',
        'irq/softirq %',
        'others %',
        'machine %',
        'server RSS peak MB',
        'listen overflows',
        'SYN retransmits',
      ],
      rows,
    ),
    '',
    `"others" = processes not started by this run and kernel threads (a busy machine skews the results: check it is near 0); irq/softirq is mostly loopback networking. ${os.availableParallelism()} cores.`,
    '',
    `Peak RSS over the whole run (MB): server ${peak.server.toFixed(0)}, worker ${peak.worker.toFixed(0)}, temporal ${peak.temporal.toFixed(0)}.`,
  ].join('\n');
}
