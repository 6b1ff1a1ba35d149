import { describe, expect, it } from 'vitest';
import { installNetworkLockdown } from './network-lockdown.js';

describe('installNetworkLockdown', () => {
  it('accepts replies, then the mesh and egress ports, then drops; removes it all again', async () => {
    const commands: string[] = [];
    const remove = await installNetworkLockdown({
      bridge: 'ol-0123456789ab',
      ports: [8420, 8421],
      run: async (binary, args) => {
        commands.push(`${binary} ${args.join(' ')}`);
        if (args[0] === '-C') throw new Error('no such rule'); // not installed yet
      },
    });
    const v4 = commands.filter((command) => command.startsWith('iptables '));
    expect(v4).toEqual([
      'iptables -N OL-IN-ol-0123456789ab',
      'iptables -A OL-IN-ol-0123456789ab -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT',
      'iptables -A OL-IN-ol-0123456789ab -p tcp --dport 8420 -j ACCEPT',
      'iptables -A OL-IN-ol-0123456789ab -p tcp --dport 8421 -j ACCEPT',
      'iptables -A OL-IN-ol-0123456789ab -j DROP',
      'iptables -C INPUT -i ol-0123456789ab -j OL-IN-ol-0123456789ab',
      'iptables -I INPUT -i ol-0123456789ab -j OL-IN-ol-0123456789ab',
    ]);
    expect(commands.filter((command) => command.startsWith('ip6tables '))).toHaveLength(7);
    commands.length = 0;
    await remove();
    expect(commands).toEqual([
      'iptables -D INPUT -i ol-0123456789ab -j OL-IN-ol-0123456789ab',
      'iptables -F OL-IN-ol-0123456789ab',
      'iptables -X OL-IN-ol-0123456789ab',
      'ip6tables -D INPUT -i ol-0123456789ab -j OL-IN-ol-0123456789ab',
      'ip6tables -F OL-IN-ol-0123456789ab',
      'ip6tables -X OL-IN-ol-0123456789ab',
    ]);
  });

  it('has the kernel refuse a container past its connections open at once or its new connections a second', async () => {
    const commands: string[] = [];
    await installNetworkLockdown({
      bridge: 'ol-0123456789ab',
      ports: [8420, 8421],
      perAgent: { connections: 64, newPerSecond: 100, newBurst: 400 },
      run: async (binary, args) => {
        commands.push(`${binary} ${args.join(' ')}`);
      },
    });
    const v4 = commands.filter((command) => command.startsWith('iptables -A'));
    expect(v4).toEqual([
      'iptables -A OL-IN-ol-0123456789ab -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT',
      'iptables -A OL-IN-ol-0123456789ab -p tcp --syn -m multiport --dports 8420,8421 -m connlimit --connlimit-above 64 -j REJECT --reject-with tcp-reset',
      'iptables -A OL-IN-ol-0123456789ab -p tcp --syn -m multiport --dports 8420,8421 -m hashlimit --hashlimit-above 100/sec --hashlimit-burst 400 --hashlimit-mode srcip --hashlimit-name ol0123456789ab -j REJECT --reject-with tcp-reset',
      'iptables -A OL-IN-ol-0123456789ab -p tcp --dport 8420 -j ACCEPT',
      'iptables -A OL-IN-ol-0123456789ab -p tcp --dport 8421 -j ACCEPT',
      'iptables -A OL-IN-ol-0123456789ab -j DROP',
    ]);
  });

  it('fails when iptables cannot be run, so the host can say so', async () => {
    await expect(
      installNetworkLockdown({
        bridge: 'ol-0123456789ab',
        ports: [8420],
        run: async () => {
          throw new Error('iptables: Permission denied (you must be root)');
        },
      }),
    ).rejects.toThrow('Permission denied');
  });
});
