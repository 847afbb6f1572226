package dev.streamfusion.testkit.fluss.server;

import org.apache.flink.annotation.Internal;

import org.apache.fluss.cluster.Endpoint;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.server.coordinator.CoordinatorServer;
import org.apache.fluss.server.tablet.TabletServer;
import org.apache.fluss.shaded.zookeeper3.org.apache.zookeeper.server.ZooKeeperServerMain;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A Fluss cluster in one JVM: ZooKeeper, a coordinator server and tablet server 0, every port
 * picked by the system, data under the directory given. Once the coordinator counts the tablet
 * server alive, the coordinator's address is written to {@code <directory>/bootstrap}; the cluster
 * stops when standard input closes (the test JVM went away or closed it).
 *
 * <p>Arguments: the directory, then {@code key=value} server options applied to both servers.
 */
@Internal
public final class FlussClusterMain {

    /** The file the coordinator's {@code host:port} is written to, once the cluster serves. */
    public static final String BOOTSTRAP_FILE = "bootstrap";

    private static final String HOST = "127.0.0.1";

    private FlussClusterMain() {}

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable t) {
            // ZooKeeper's and the servers' threads would keep the JVM alive: a failed start ends it.
            System.err.println("ERROR: the Fluss cluster failed");
            t.printStackTrace();
            System.exit(1);
        }
    }

    private static void run(String[] args) throws Exception {
        Path directory = Path.of(args[0]);
        int zookeeperPort = freePort();
        Thread zookeeper = new Thread(
                () -> ZooKeeperServerMain.main(new String[] {
                    Integer.toString(zookeeperPort), directory.resolve("zookeeper").toString()}),
                "zookeeper");
        zookeeper.setDaemon(true);
        zookeeper.start();
        awaitPort(zookeeperPort);

        Configuration base = new Configuration();
        base.setString("zookeeper.address", HOST + ":" + zookeeperPort);
        base.setString("remote.data.dir", directory.resolve("remote").toString());
        base.setString("server.buffer.memory-size", "32mb");
        for (int i = 1; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            base.setString(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        Configuration coordinatorConf = new Configuration(base);
        coordinatorConf.setString("bind.listeners", "FLUSS://" + HOST + ":0");
        CoordinatorServer coordinator = new CoordinatorServer(coordinatorConf);
        coordinator.start();
        Endpoint endpoint = coordinator.getRpcServer().getBindEndpoints().get(0);

        Configuration tabletConf = new Configuration(base);
        tabletConf.setString("bind.listeners", "FLUSS://" + HOST + ":0");
        tabletConf.setString("tablet-server.id", "0");
        tabletConf.setString("data.dir", directory.resolve("data").toString());
        TabletServer tablet = new TabletServer(tabletConf);
        tablet.start();
        while (!coordinator.getMetadataCache().isAliveTabletServer(0)) {
            Thread.sleep(50);
        }

        String bootstrap = endpoint.getHost() + ":" + endpoint.getPort();
        Path pending = directory.resolve(BOOTSTRAP_FILE + ".tmp");
        Files.write(pending, bootstrap.getBytes(StandardCharsets.UTF_8));
        Files.move(pending, directory.resolve(BOOTSTRAP_FILE), StandardCopyOption.ATOMIC_MOVE);
        System.out.println("Fluss cluster serving at " + bootstrap);

        while (System.in.read() != -1) {
            // Runs until the test JVM closes the pipe.
        }
        tablet.close();
        coordinator.close();
        System.exit(0);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void awaitPort(int port) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(HOST, port), 500);
                return;
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("ZooKeeper did not listen on port " + port + " within 60 s");
    }
}
