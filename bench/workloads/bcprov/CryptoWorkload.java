// Bouncy Castle workload: hashes, MACs, encrypts and signs a file through the lightweight API
// (no JCE provider, so the jar need not be signed), with fixed keys, IVs and seeds. Prints one
// hex digest per step, so the output is the same on every run.
//
//   java CryptoWorkload FILE ROUNDS [MAX_BYTES [PBKDF2_ITERATIONS]]
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.SecureRandom;
import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.digests.Blake2bDigest;
import org.bouncycastle.crypto.digests.SHA1Digest;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.digests.SHA3Digest;
import org.bouncycastle.crypto.digests.SHA512Digest;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.engines.ChaCha7539Engine;
import org.bouncycastle.crypto.engines.TwofishEngine;
import org.bouncycastle.crypto.generators.Ed25519KeyPairGenerator;
import org.bouncycastle.crypto.generators.PKCS5S2ParametersGenerator;
import org.bouncycastle.crypto.macs.HMac;
import org.bouncycastle.crypto.modes.CBCBlockCipher;
import org.bouncycastle.crypto.modes.GCMBlockCipher;
import org.bouncycastle.crypto.paddings.PaddedBufferedBlockCipher;
import org.bouncycastle.crypto.params.AEADParameters;
import org.bouncycastle.crypto.params.Ed25519KeyGenerationParameters;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.bouncycastle.util.encoders.Hex;

public final class CryptoWorkload {
  private static int iterations;

  public static void main(String[] args) throws Exception {
    byte[] data = Files.readAllBytes(Paths.get(args[0]));
    int rounds = Integer.parseInt(args[1]);
    if (args.length > 2) {
      data = java.util.Arrays.copyOf(data, Math.min(data.length, Integer.parseInt(args[2])));
    }
    iterations = args.length > 3 ? Integer.parseInt(args[3]) : 20000;
    for (int r = 0; r < rounds; r++) {
      boolean print = r == rounds - 1;
      out(print, "sha1", digest(new SHA1Digest(), data));
      out(print, "sha256", digest(new SHA256Digest(), data));
      out(print, "sha512", digest(new SHA512Digest(), data));
      out(print, "sha3-256", digest(new SHA3Digest(256), data));
      out(print, "blake2b", digest(new Blake2bDigest(256), data));
      out(print, "hmac-sha256", hmac(data));
      out(print, "aes-cbc", digest(new SHA256Digest(), cbc(new AESEngine(), data)));
      out(print, "twofish-cbc", digest(new SHA256Digest(), cbc(new TwofishEngine(), data)));
      out(print, "aes-gcm", digest(new SHA256Digest(), gcm(data)));
      out(print, "chacha20", digest(new SHA256Digest(), chacha(data)));
      out(print, "pbkdf2", pbkdf2());
      out(print, "ed25519", ed25519(data));
    }
  }

  private static void out(boolean print, String what, byte[] value) {
    if (print) System.out.println(what + " " + Hex.toHexString(value));
  }

  private static byte[] bytes(int n, int seed) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) b[i] = (byte) (seed * 31 + i * 17);
    return b;
  }

  private static byte[] digest(Digest d, byte[] data) {
    d.update(data, 0, data.length);
    byte[] out = new byte[d.getDigestSize()];
    d.doFinal(out, 0);
    return out;
  }

  private static byte[] hmac(byte[] data) {
    HMac mac = new HMac(new SHA256Digest());
    mac.init(new KeyParameter(bytes(32, 1)));
    mac.update(data, 0, data.length);
    byte[] out = new byte[mac.getMacSize()];
    mac.doFinal(out, 0);
    return out;
  }

  private static byte[] cbc(org.bouncycastle.crypto.BlockCipher engine, byte[] data)
      throws Exception {
    PaddedBufferedBlockCipher c = new PaddedBufferedBlockCipher(CBCBlockCipher.newInstance(engine));
    c.init(true, new ParametersWithIV(new KeyParameter(bytes(32, 2)), bytes(16, 3)));
    byte[] out = new byte[c.getOutputSize(data.length)];
    int n = c.processBytes(data, 0, data.length, out, 0);
    c.doFinal(out, n);
    return out;
  }

  private static byte[] gcm(byte[] data) throws Exception {
    GCMBlockCipher c = (GCMBlockCipher) GCMBlockCipher.newInstance(new AESEngine());
    c.init(true, new AEADParameters(new KeyParameter(bytes(16, 4)), 128, bytes(12, 5)));
    byte[] out = new byte[c.getOutputSize(data.length)];
    int n = c.processBytes(data, 0, data.length, out, 0);
    c.doFinal(out, n);
    return out;
  }

  private static byte[] chacha(byte[] data) {
    ChaCha7539Engine c = new ChaCha7539Engine();
    c.init(true, new ParametersWithIV(new KeyParameter(bytes(32, 6)), bytes(12, 7)));
    byte[] out = new byte[data.length];
    c.processBytes(data, 0, data.length, out, 0);
    return out;
  }

  private static byte[] pbkdf2() {
    PKCS5S2ParametersGenerator g = new PKCS5S2ParametersGenerator(new SHA256Digest());
    g.init(bytes(16, 8), bytes(16, 9), iterations);
    return ((KeyParameter) g.generateDerivedParameters(256)).getKey();
  }

  // Ed25519 signatures are deterministic; the key comes from a seeded generator.
  private static byte[] ed25519(byte[] data) throws Exception {
    SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
    random.setSeed(42L);
    Ed25519KeyPairGenerator g = new Ed25519KeyPairGenerator();
    g.init(new Ed25519KeyGenerationParameters(random));
    AsymmetricCipherKeyPair kp = g.generateKeyPair();
    byte[] sig = null;
    for (int i = 0; i < 20; i++) {
      Ed25519Signer s = new Ed25519Signer();
      s.init(true, kp.getPrivate());
      s.update(data, 0, Math.min(data.length, 4096 + i));
      sig = s.generateSignature();
    }
    return sig;
  }
}
