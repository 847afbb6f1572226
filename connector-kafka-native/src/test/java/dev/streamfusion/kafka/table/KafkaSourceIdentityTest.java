package dev.streamfusion.kafka.table;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code streamfusion-kafka} source carries the operator name and uid of Flink's Kafka table
 * source, so that a compiled plan or savepoint taken with {@code 'connector' = 'kafka'} maps onto
 * it. Planning only: no broker is contacted.
 */
class KafkaSourceIdentityTest {

    @Test
    void theSourceHasTheNameAndUidOfFlinksKafkaSource() {
        Map<String, StreamNode> sources = new TreeMap<>();
        for (String connector : new String[] {"kafka", "streamfusion-kafka"}) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            StreamTableEnvironment tables = StreamTableEnvironment.create(env);
            tables.getConfig().set("table.exec.uid.generation", "ALWAYS");
            tables.executeSql(
                    "CREATE TABLE orders (id INT, item STRING) WITH ('connector' = '" + connector + "', 'topic' = 'orders', "
                            + "'properties.bootstrap.servers' = '127.0.0.1:9', 'scan.startup.mode' = 'earliest-offset', "
                            + "'format' = 'json')");
            tables.toChangelogStream(tables.sqlQuery("SELECT id, item FROM orders")).sinkTo(new DiscardingSink<>());
            StreamGraph graph = env.getStreamGraph();
            StreamNode source = graph.getStreamNodes().stream()
                    .filter(node -> graph.getSourceIDs().contains(node.getId()))
                    .findFirst()
                    .orElseThrow();
            sources.put(connector, source);
        }
        StreamNode stock = sources.get("kafka");
        StreamNode fused = sources.get("streamfusion-kafka");
        // The plan's node ids count on across plans in one JVM; in a compiled plan they are the
        // plan's own, so uids match there.
        assertThat(withoutNodeId(fused.getOperatorName())).isEqualTo(withoutNodeId(stock.getOperatorName()));
        assertThat(stock.getTransformationUID()).isNotEmpty();
        assertThat(withoutNodeId(fused.getTransformationUID())).isEqualTo(withoutNodeId(stock.getTransformationUID()));
    }

    private static String withoutNodeId(String nameOrUid) {
        return nameOrUid.replaceAll("\\[\\d+]", "[]").replaceAll("^\\d+_", "_");
    }
}
