import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.FileReader;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collections;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import okhttp3.CertificatePinner;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * mitmsim's differential probe: the real OkHttp connects to servers on 127.0.0.1, one per world, and says
 * whether it accepted each.
 *
 * <p>The manifest has one world per line, tab-separated: an id, the port, the host the URL names (resolved to
 * 127.0.0.1), a PEM file of the trust anchors, then any number of "pattern pin" pins. For each line it prints
 * "id accepted", "id refused-trust-manager", "id refused-hostname", "id refused-pinner" or "id error
 * message". At most 1000 lines are read; every connection has a 5-second timeout.
 */
public final class OkHttpProbe {
  public static void main(String[] args) throws Exception {
    try (BufferedReader manifest = new BufferedReader(new FileReader(args[0]))) {
      String line;
      for (int count = 0; count < 1000 && (line = manifest.readLine()) != null; count++) {
        String[] fields = line.split("\t");
        CertificatePinner.Builder pins = new CertificatePinner.Builder();
        for (int i = 4; i < fields.length; i++) {
          String[] pin = fields[i].split(" ");
          pins.add(pin[0], pin[1]);
        }
        System.out.println(fields[0] + " " + probe(Integer.parseInt(fields[1]), fields[2], fields[3], pins.build()));
      }
    }
  }

  static String probe(int port, String host, String anchors, CertificatePinner pinner) throws Exception {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    try (InputStream pem = new FileInputStream(anchors)) {
      int index = 0;
      for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(pem)) {
        store.setCertificateEntry("anchor" + index++, certificate);
      }
    }
    TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    X509TrustManager trustManager = (X509TrustManager) factory.getTrustManagers()[0];
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, new TrustManager[] {trustManager}, null);
    OkHttpClient client = new OkHttpClient.Builder()
        .sslSocketFactory(context.getSocketFactory(), trustManager)
        .certificatePinner(pinner)
        .dns(name -> Collections.singletonList(InetAddress.getByName("127.0.0.1")))
        .connectTimeout(5, TimeUnit.SECONDS)
        .readTimeout(5, TimeUnit.SECONDS)
        .retryOnConnectionFailure(false)
        .build();
    Request request = new Request.Builder().url("https://" + host + ":" + port + "/").build();
    try (Response response = client.newCall(request).execute()) {
      return "accepted";
    } catch (SSLPeerUnverifiedException e) {
      String message = String.valueOf(e.getMessage());
      return message.startsWith("Certificate pinning failure!") ? "refused-pinner" : message.startsWith("Hostname ")
          ? "refused-hostname" : "error " + message.split("\n")[0];
    } catch (SSLHandshakeException e) {
      return "refused-trust-manager";
    } catch (IOException e) {
      return "error " + e;
    } finally {
      client.connectionPool().evictAll();
      client.dispatcher().executorService().shutdown();
    }
  }
}
