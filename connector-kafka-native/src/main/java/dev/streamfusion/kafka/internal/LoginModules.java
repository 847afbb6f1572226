package dev.streamfusion.kafka.internal;

import org.apache.flink.annotation.Internal;

import org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule;
import org.apache.kafka.common.security.plain.PlainLoginModule;
import org.apache.kafka.common.security.scram.ScramLoginModule;

import java.util.List;
import java.util.Properties;

/**
 * kafka-clients' login modules under the names the running kafka-clients has. A {@code
 * sasl.jaas.config} names its module by class; users write kafka-clients' own name, or the one
 * Flink's Kafka SQL jar relocates it to, while StreamFusion's SQL jar relocates kafka-clients
 * again: either name is rewritten to the class that is there.
 */
@Internal
public final class LoginModules {

    private LoginModules() {}

    private static final List<Class<?>> MODULES =
            List.of(PlainLoginModule.class, ScramLoginModule.class, OAuthBearerLoginModule.class);

    /** The prefixes the module names are written with: kafka-clients' own, and Flink's SQL jar's. */
    private static final List<String> WRITTEN_PREFIXES = List.of("", "org.apache.flink.kafka.shaded.");

    /**
     * kafka-clients' own package of login modules, spelled so that the SQL jar's relocation (which
     * rewrites string constants naming kafka-clients' packages) leaves it as users write it.
     */
    private static final String SECURITY_PACKAGE = String.join(".", "org", "apache", "kafka", "common", "security") + ".";

    /** {@code properties} with the login module of {@code sasl.jaas.config} renamed to the one present. */
    public static Properties rewritten(Properties properties) {
        String jaas = properties.getProperty("sasl.jaas.config");
        if (jaas == null) {
            return properties;
        }
        String rewritten = rewrite(jaas);
        if (rewritten.equals(jaas)) {
            return properties;
        }
        Properties copy = new Properties();
        copy.putAll(properties);
        copy.setProperty("sasl.jaas.config", rewritten);
        return copy;
    }

    static String rewrite(String jaas) {
        String trimmed = jaas.trim();
        for (Class<?> module : MODULES) {
            String present = module.getName();
            String simple = SECURITY_PACKAGE + present.substring(present.indexOf(".security.") + ".security.".length());
            for (String prefix : WRITTEN_PREFIXES) {
                String written = prefix + simple;
                if (!written.equals(present) && trimmed.startsWith(written) && trimmed.length() > written.length()
                        && Character.isWhitespace(trimmed.charAt(written.length()))) {
                    return present + trimmed.substring(written.length());
                }
            }
        }
        return jaas;
    }
}
