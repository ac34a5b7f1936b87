package io.mdfanout.cli;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The chain across two "hosts" ({@link TwoHosts}): network namespaces A and B joined by a veth pair with a
 * 1500-byte MTU, as two machines on an ordinary Ethernet. The simulator, the feed handler and the fanout
 * run in A (the exchange's feed on A's loopback), two recording subscribers in B, each a separate JVM with
 * its own media driver, so every byte they get crossed the link. Once over Aeron multicast, once over
 * Aeron multi-destination-cast (the chart's {@code aeron.mode: mdc}: the fanout's channel names its
 * control address, each subscriber's channel its own endpoint through {@code --advertise-interface}), both
 * with the chart's default Aeron MTU read from charts/mdfanout/values.yaml (1408: with the 28 bytes of IP
 * and UDP headers a frame of 1436 fits 1500).
 * <p>
 * Each subscriber's recording must be exactly the oracle's ({@link ExpectedStreams}) and its books equal
 * to the reference books; the veth's counters must show the stream crossed the link, and A's and B's IP
 * counters that no datagram was fragmented (FragCreates, FragOKs, ReasmReqds unchanged). A third test
 * shows those counters do see fragmentation on this link: one 4000-byte datagram from A to B is.
 * <p>
 * Needs root and iproute2 ({@code ip netns}); without them it fails, saying so. Alone:
 * {@code mvn -B -ntp -pl cli -am test -Dtest=TwoHostTest -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class TwoHostTest
{
    private static final int PARTITIONS = 4;
    private static final int SYMBOLS = 200;
    private static final long MESSAGES = Long.getLong("twohost.messages", 400_000L);
    private static final int RATE = Integer.getInteger("twohost.rate", 100_000);
    private static final int SUBSCRIBERS = 2;
    private static final String SUBNET = "10.213.0";
    /** IPv4 (20) and UDP (8) headers around an Aeron datagram of at most the channel's mtu. */
    private static final int IP_UDP_HEADERS = 28;
    private static final Path CHART_VALUES = Path.of("..", "charts", "mdfanout", "values.yaml");

    private static TwoHosts hosts;

    @BeforeAll
    static void makeTheHosts() throws Exception
    {
        hosts = new TwoHosts(SUBNET);
        assertEquals(TwoHosts.LINK_MTU, hosts.linkMtu(true), "host A's link MTU");
        assertEquals(TwoHosts.LINK_MTU, hosts.linkMtu(false), "host B's link MTU");
    }

    @AfterAll
    static void removeTheHosts()
    {
        if (null != hosts)
        {
            hosts.close();
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void multicastAcrossTheLinkWithTheChartsMtuGivesExactBooksAndNoFragments(@TempDir final Path dir) throws Exception
    {
        final int mtu = chartDefaultMtu();
        final String group = "224.0.1.181:54100";
        // As the chart's mdfanout.publicationChannel and subscriptionChannel render mode multicast with an interface.
        final String publication = "aeron:udp?endpoint=" + group + "|interface=" + hosts.addressA() + "|mtu=" + mtu;
        final String subscription = "aeron:udp?endpoint=" + group + "|interface=" + hosts.addressB();
        runAcrossTheLink(dir, "twohost-mc", 54001L, "239.255.54.1", 54101, publication, subscription, List.of());
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void multiDestinationCastAcrossTheLinkWithTheChartsMtuGivesExactBooksAndNoFragments(@TempDir final Path dir)
        throws Exception
    {
        final int mtu = chartDefaultMtu();
        final String control = hosts.addressA() + ":54190";
        // As the chart renders mode mdc: the subscribers put their own address (B's veth) into the endpoint, on one
        // fixed port each (the chart's aeron.mdcSubscriberPort; here both share B's address, so two ports).
        final String publication = "aeron:udp?control=" + control + "|control-mode=dynamic|mtu=" + mtu;
        final String subscription = "aeron:udp?endpoint=0.0.0.0:5430{i}|control=" + control + "|control-mode=dynamic";
        runAcrossTheLink(dir, "twohost-mdc", 54002L, "239.255.54.3", 54103, publication, subscription,
            List.of("--advertise-interface", hosts.vethB()));
    }

    @Test
    void anOversizedDatagramOnTheLinkIsFragmentedAndTheCountersSeeIt() throws Exception
    {
        final Map<String, Long> beforeA = hosts.ipCounters(true);
        final Map<String, Long> beforeB = hosts.ipCounters(false);
        // bash writes the 4000 bytes as one datagram: 3 fragments on a 1500-byte link.
        hosts.exec(true, "bash", "-c", "head -c 4000 /dev/zero > /dev/udp/" + hosts.addressB() + "/54199");
        final long created = delta(beforeA, hosts.ipCounters(true), "FragCreates");
        assertTrue(created >= 3, "host A fragmented the 4000-byte datagram: FragCreates +" + created);
        final long reassembly = awaitDelta(beforeB, "ReasmReqds");
        assertTrue(reassembly >= 3, "host B saw the fragments: ReasmReqds +" + reassembly);
    }

    private static void runAcrossTheLink(
        final Path dir, final String name, final long seed, final String itchGroup, final int itchPort,
        final String publication, final String subscription, final List<String> subscriberArgs) throws Exception
    {
        final List<String> hostA = hosts.prefix(true);
        final List<String> hostB = hosts.prefix(false);
        try (ChainHarness chain = new ChainHarness(dir, name, PARTITIONS, publication, 5400))
        {
            final String ring = chain.ringDir().toString();
            final String partitions = Integer.toString(PARTITIONS);
            final String[] feed = {"--group", itchGroup, "--port", Integer.toString(itchPort), "--interface", "127.0.0.1"};

            chain.start("feed-handler", hostA, List.of(), concat(new String[] {"feed-handler", "--ring-dir", ring,
                "--partitions", partitions, "--stats-interval-s", "2"}, feed));
            final ChainProcess fanout = chain.start("fanout", hostA, List.of(), "fanout", "--ring-dir", ring,
                "--partitions", partitions, "--channel", publication, "--stream-id-base", "5400",
                "--stats-interval-s", "5");

            final Map<String, Long> ipBeforeA = hosts.ipCounters(true);
            final Map<String, Long> ipBeforeB = hosts.ipCounters(false);
            final long rxPacketsBefore = hosts.linkCounter(false, "rx_packets");
            final long rxBytesBefore = hosts.linkCounter(false, "rx_bytes");

            final List<ChainProcess> subscribers = new ArrayList<>();
            for (int i = 1; i <= SUBSCRIBERS; i++)
            {
                final List<String> args = new ArrayList<>(List.of("record", "--channel",
                    subscription.replace("{i}", Integer.toString(i)),
                    "--stream-id-base", "5400", "--partitions", partitions,
                    "--out", chain.recording(i).toString(), "--books-out", chain.books(i).toString(),
                    "--ready-file", dir.resolve("subscriber-" + i + ".ready").toString(),
                    "--until-end-of-messages", "--timeout-s", "240"));
                args.addAll(subscriberArgs);
                subscribers.add(chain.start("subscriber-" + i, hostB, List.of(), args.toArray(String[]::new)));
            }
            for (int i = 1; i <= SUBSCRIBERS; i++)
            {
                chain.awaitFile(dir.resolve("subscriber-" + i + ".ready"), 120);
            }
            final long sockets = hosts.exec(false, "ss", "-uan").lines()
                .filter(line -> line.startsWith("UNCONN")).count();

            final ChainProcess simulator = chain.start("simulator", hostA, List.of(), concat(new String[] {
                "simulator", "--stats-interval-s", "2", "--seed", Long.toString(seed),
                "--symbols", Integer.toString(SYMBOLS), "--messages", Long.toString(MESSAGES),
                "--rate", Integer.toString(RATE)}, feed));
            assertEquals(0, simulator.waitFor(3, TimeUnit.MINUTES), "simulator exit code");
            for (final ChainProcess subscriber : subscribers)
            {
                assertEquals(0, subscriber.waitFor(3, TimeUnit.MINUTES), subscriber.name() +
                    " exit code (0 = saw END_OF_MESSAGES on every partition, no gap, nothing malformed)");
            }

            final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, MESSAGES, PARTITIONS);
            long recorded = 0;
            for (int i = 1; i <= SUBSCRIBERS; i++)
            {
                final long verified = expected.verifyRecording(chain.recording(i), "subscriber-" + i);
                assertTrue(verified > MESSAGES * 9 / 10, "the normalized feed carries most of the session");
                assertEquals(expected.books(), Files.readString(chain.books(i)),
                    "subscriber-" + i + " books equal the reference book built from the generated session");
                recorded += Files.size(chain.recording(i));
            }

            final long rxPackets = hosts.linkCounter(false, "rx_packets") - rxPacketsBefore;
            final long rxBytes = hosts.linkCounter(false, "rx_bytes") - rxBytesBefore;
            final Map<String, Long> ipAfterA = hosts.ipCounters(true);
            final Map<String, Long> ipAfterB = hosts.ipCounters(false);
            System.out.println(name + ": " + MESSAGES + " messages, " + SUBSCRIBERS + " subscribers in host B; " +
                sockets + " UDP sockets there; B's veth received " + rxPackets + " frames, " + rxBytes + " bytes (" +
                (rxPackets > 0 ? rxBytes / rxPackets : 0) + " per frame); recordings " + recorded + " bytes; " +
                "A FragCreates +" + delta(ipBeforeA, ipAfterA, "FragCreates") + ", B ReasmReqds +" +
                delta(ipBeforeB, ipAfterB, "ReasmReqds") + "; fanout " + fanout.lastLineContaining("fanout:"));

            // The stream crossed the link: at least the normalized bytes one subscriber recorded arrived through
            // B's veth (multicast: one copy for both; multi-destination-cast: one per subscriber).
            assertTrue(rxBytes >= recorded / SUBSCRIBERS / 2,
                "the stream crossed the link: " + rxBytes + " bytes received on B's veth, recordings " + recorded);
            assertTrue(rxPackets >= MESSAGES / 100, "frames crossed the link: " + rxPackets);
            // ... once per subscriber at most: multicast one copy for both, MDC one per destination (with a port per
            // subscription, MDC sent each subscriber the whole feed once per partition: over 4 times the recordings).
            assertTrue(rxBytes < 2 * recorded, "each subscriber received the feed once: " + rxBytes +
                " bytes on B's veth for " + recorded + " bytes of recordings");
            // ... and without IP fragmentation: every frame fit the 1500-byte link.
            assertEquals(0, delta(ipBeforeA, ipAfterA, "FragCreates"), "host A fragmented nothing");
            assertEquals(0, delta(ipBeforeA, ipAfterA, "FragOKs"), "host A fragmented no datagram");
            assertEquals(0, delta(ipBeforeA, ipAfterA, "FragFails"), "host A dropped no datagram it could not fragment");
            assertEquals(0, delta(ipBeforeB, ipAfterB, "ReasmReqds"), "host B reassembled nothing");
            assertEquals(0, hosts.linkCounter(false, "rx_errors"), "no receive errors on B's veth");
            chain.passed();
        }
    }

    /** feeds[0].aeron.mtu of the chart's values.yaml: the MTU a default deployment publishes with. */
    private static int chartDefaultMtu() throws IOException
    {
        final Matcher mtu = Pattern.compile("(?m)^\\s+mtu:\\s*(\\d+)").matcher(Files.readString(CHART_VALUES));
        assertTrue(mtu.find(), "an aeron mtu in " + CHART_VALUES.toAbsolutePath());
        final int value = Integer.parseInt(mtu.group(1));
        assertTrue(value + IP_UDP_HEADERS <= TwoHosts.LINK_MTU,
            "the chart's default Aeron mtu " + value + " plus IP and UDP headers fits a 1500-byte link");
        return value;
    }

    /** A counter's growth in host B once it has settled (fragments arrive a moment after they are sent). */
    private static long awaitDelta(final Map<String, Long> before, final String counter) throws Exception
    {
        long delta = 0;
        for (int i = 0; i < 50 && delta < 3; i++)
        {
            delta = delta(before, hosts.ipCounters(false), counter);
            Thread.sleep(20);
        }
        return delta;
    }

    private static long delta(final Map<String, Long> before, final Map<String, Long> after, final String counter)
    {
        assertTrue(before.containsKey(counter) && after.containsKey(counter), "/proc/net/snmp has Ip: " + counter);
        return after.get(counter) - before.get(counter);
    }

    private static String[] concat(final String[] first, final String[] second)
    {
        final String[] all = java.util.Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }
}
