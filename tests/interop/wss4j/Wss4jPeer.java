/*
 * Wss4jPeer - Apache WSS4J 1.6 (Debian's libwss4j-java) as the other party
 * of tests/wss4j.sh: it sends SOAP messages signed and encrypted in each
 * layout and with each recipient key identifier, and it receives messages
 * with WSSecurityEngine, then checks what was protected and prints the
 * exclusive canonical form of the Body.  Not for: benchmarks or a general
 * WS-Security client; the algorithms are domlab's profile (RSA-SHA256,
 * SHA-256, exc-c14n, AES-256-GCM or AES-128-CBC, RSA-OAEP).
 *
 * Usage: java Wss4jPeer KEYSTORE.p12 ME PEER, then one job per line on
 * standard input:
 *   send LAYOUT KEYID CIPHER IN OUT  sign as ME, encrypt for PEER
 *   receive IN OUT                   decrypt as ME, trust PEER's signature;
 *                                    OUT gets the Body's exc-c14n
 * LAYOUT: sign-encrypt, encrypt-sign, encrypt-signature, encrypt-header
 * (the first soap:Header child is encrypted as a wsse11:EncryptedHeader).
 * KEYID: issuer-serial, ski, thumbprint, bst.  CIPHER: aes256-gcm,
 * aes128-cbc.  Each job prints "ok OUT", or "refused IN: reason" for a
 * receive and "refused OUT: reason" for a send (and then writes no OUT); the exit status is 1 when any job was refused.  One JVM
 * runs every job because starting one costs about 0.6 s of CPU.
 */
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.apache.ws.security.WSConstants;
import org.apache.ws.security.WSDataRef;
import org.apache.ws.security.WSEncryptionPart;
import org.apache.ws.security.WSPasswordCallback;
import org.apache.ws.security.WSSConfig;
import org.apache.ws.security.WSSecurityEngine;
import org.apache.ws.security.WSSecurityEngineResult;
import org.apache.ws.security.components.crypto.Merlin;
import org.apache.ws.security.message.WSSecEncrypt;
import org.apache.ws.security.message.WSSecHeader;
import org.apache.ws.security.message.WSSecSignature;
import org.apache.ws.security.message.WSSecTimestamp;
import org.apache.xml.security.c14n.Canonicalizer;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

public final class Wss4jPeer {
	/* tests/wss4j.sh makes the keystore with this password. */
	private static final String PASSWORD = "domlab-test";
	/*
	 * How old a Timestamp may be, in seconds, each way: under valgrind
	 * (make memcheck) domlab's side of a batch takes minutes.
	 */
	private static final int TTL = 3600;
	private static final String RSA_SHA256 =
		"http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";

	private final Merlin crypto = new Merlin();
	private final String me;
	private final String peer;

	private Wss4jPeer(String keystore, String me, String peer) throws Exception {
		KeyStore ks = KeyStore.getInstance("PKCS12");
		try (FileInputStream in = new FileInputStream(keystore)) {
			ks.load(in, PASSWORD.toCharArray());
		}
		crypto.setKeyStore(ks);
		crypto.setTrustStore(ks);
		this.me = me;
		this.peer = peer;
	}

	public static void main(String[] args) throws Exception {
		if (args.length != 3) {
			System.err.println("usage: java Wss4jPeer KEYSTORE.p12 ME PEER < jobs");
			System.exit(2);
		}
		WSSConfig.init();
		Wss4jPeer p = new Wss4jPeer(args[0], args[1], args[2]);
		BufferedReader jobs = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
		boolean refused = false;
		for (String line; (line = jobs.readLine()) != null;) {
			String[] a = line.trim().split("\\s+");
			if (a.length == 0 || a[0].isEmpty())
				continue;
			refused |= !p.job(a);
		}
		System.out.flush();
		System.exit(refused ? 1 : 0);
	}

	private boolean job(String[] a) {
		/* A refusal names the message received, or the one to be sent. */
		String name = a.length < 3 ? "?" : a[0].equals("send") ? a[a.length - 1] : a[a.length - 2];
		try {
			if (a[0].equals("send") && a.length == 6)
				write(a[5], serialize(send(parse(a[4]), a[1], a[2], a[3])));
			else if (a[0].equals("receive") && a.length == 3)
				write(a[2], receive(parse(a[1])));
			else
				throw new IllegalArgumentException("bad job: " + String.join(" ", a));
			System.out.println("ok " + a[a.length - 1]);
			return true;
		} catch (Exception e) {
			System.out.println("refused " + name + ": " + e);
			return false;
		}
	}

	private static Document parse(String file) throws Exception {
		DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
		f.setNamespaceAware(true);
		f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
		return f.newDocumentBuilder().parse(file);
	}

	private static byte[] serialize(Document doc) throws Exception {
		java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
		TransformerFactory.newInstance().newTransformer()
			.transform(new DOMSource(doc), new StreamResult(out));
		return out.toByteArray();
	}

	private static void write(String file, byte[] bytes) throws Exception {
		try (OutputStream out = new FileOutputStream(file)) {
			out.write(bytes);
		}
	}

	private static int keyId(String name) {
		switch (name) {
		case "issuer-serial": return WSConstants.ISSUER_SERIAL;
		case "ski": return WSConstants.SKI_KEY_IDENTIFIER;
		case "thumbprint": return WSConstants.THUMBPRINT_IDENTIFIER;
		case "bst": return WSConstants.BST_DIRECT_REFERENCE;
		default: throw new IllegalArgumentException("unknown key identifier " + name);
		}
	}

	private static String cipher(String name) {
		switch (name) {
		case "aes256-gcm": return WSConstants.AES_256_GCM;
		case "aes128-cbc": return WSConstants.AES_128;
		default: throw new IllegalArgumentException("unknown cipher " + name);
		}
	}

	private static Element body(Document doc) {
		String soap = doc.getDocumentElement().getNamespaceURI();
		return (Element) doc.getElementsByTagNameNS(soap, "Body").item(0);
	}

	/* The first element child of soap:Header that is not the Security header. */
	private static Element headerBlock(Document doc) {
		String soap = doc.getDocumentElement().getNamespaceURI();
		Node h = doc.getElementsByTagNameNS(soap, "Header").item(0);
		for (Node c = h == null ? null : h.getFirstChild(); c != null; c = c.getNextSibling())
			if (c instanceof Element && !"Security".equals(c.getLocalName()))
				return (Element) c;
		throw new IllegalArgumentException("no header block to encrypt");
	}

	private Document send(Document doc, String layout, String kid, String cipher)
		throws Exception {
		String soap = doc.getDocumentElement().getNamespaceURI();
		WSSecHeader sec = new WSSecHeader();
		sec.setMustUnderstand(true);
		sec.insertSecurityHeader(doc);
		WSSecTimestamp ts = new WSSecTimestamp();
		ts.setTimeToLive(TTL);
		ts.build(doc, sec);

		List<WSEncryptionPart> enc = new ArrayList<>();
		enc.add(new WSEncryptionPart("Body", soap, "Content"));
		switch (layout) {
		case "sign-encrypt":
		case "encrypt-sign":
			break;
		case "encrypt-signature":
			enc.add(new WSEncryptionPart("Signature", WSConstants.SIG_NS, "Element"));
			break;
		case "encrypt-header":
			Element block = headerBlock(doc);
			enc.add(new WSEncryptionPart(block.getLocalName(), block.getNamespaceURI(), "Header"));
			break;
		default:
			throw new IllegalArgumentException("unknown layout " + layout);
		}
		if (layout.equals("encrypt-sign")) {
			encrypt(doc, sec, kid, cipher, enc);
			sign(doc, sec, soap);
		} else {
			sign(doc, sec, soap);
			encrypt(doc, sec, kid, cipher, enc);
		}
		return doc;
	}

	private void sign(Document doc, WSSecHeader sec, String soap) throws Exception {
		WSSecSignature sig = new WSSecSignature();
		sig.setUserInfo(me, PASSWORD);
		sig.setKeyIdentifierType(WSConstants.BST_DIRECT_REFERENCE);
		sig.setSignatureAlgorithm(RSA_SHA256);
		sig.setDigestAlgo(WSConstants.SHA256);
		sig.setSigCanonicalization(WSConstants.C14N_EXCL_OMIT_COMMENTS);
		List<WSEncryptionPart> parts = new ArrayList<>();
		parts.add(new WSEncryptionPart("Body", soap, ""));
		parts.add(new WSEncryptionPart("Timestamp", WSConstants.WSU_NS, ""));
		sig.setParts(parts);
		sig.build(doc, crypto, sec);
	}

	private void encrypt(Document doc, WSSecHeader sec, String kid, String cipher,
			     List<WSEncryptionPart> parts) throws Exception {
		WSSecEncrypt enc = new WSSecEncrypt();
		enc.setUserInfo(peer);
		enc.setKeyIdentifierType(keyId(kid));
		enc.setSymmetricEncAlgorithm(cipher(cipher));
		enc.setKeyEnc(WSConstants.KEYTRANSPORT_RSAOEP);
		enc.setParts(parts);
		enc.build(doc, crypto, sec);
	}

	/*
	 * WSSecurityEngine accepts a message without a Security header, or with
	 * only some parts protected: the receiver policy is the caller's.  This
	 * one asks what domlab's asks: the envelope's own Body and the Timestamp
	 * signed by the trusted peer, and the Body's content encrypted.
	 */
	private byte[] receive(Document doc) throws Exception {
		CallbackHandler pw = (Callback[] cbs) -> {
			for (Callback cb : cbs)
				((WSPasswordCallback) cb).setPassword(PASSWORD);
		};
		WSSecurityEngine engine = new WSSecurityEngine();
		WSSConfig config = WSSConfig.getNewInstance();
		config.setTimeStampTTL(TTL);
		engine.setWssConfig(config);
		List<WSSecurityEngineResult> results =
			engine.processSecurityHeader(doc, null, pw, crypto);
		if (results == null)
			throw new SecurityException("no Security header");
		Element body = body(doc);
		boolean bodySigned = false, tsSigned = false, bodyEncrypted = false;
		for (WSSecurityEngineResult r : results) {
			int action = (Integer) r.get(WSSecurityEngineResult.TAG_ACTION);
			@SuppressWarnings("unchecked")
			List<WSDataRef> refs = (List<WSDataRef>) r.get(WSSecurityEngineResult.TAG_DATA_REF_URIS);
			for (WSDataRef ref : refs == null ? new ArrayList<WSDataRef>() : refs) {
				Element e = ref.getProtectedElement();
				if (action == WSConstants.SIGN && e == body)
					bodySigned = true;
				else if (action == WSConstants.SIGN && "Timestamp".equals(e.getLocalName())
					 && WSConstants.WSU_NS.equals(e.getNamespaceURI()))
					tsSigned = true;
				else if (action == WSConstants.ENCR && e == body)
					bodyEncrypted = true;
			}
		}
		if (!bodySigned || !tsSigned || !bodyEncrypted)
			throw new SecurityException("policy: Body signed " + bodySigned
				+ ", Timestamp signed " + tsSigned + ", Body encrypted " + bodyEncrypted);
		if (doc.getElementsByTagNameNS(WSConstants.ENC_NS, "EncryptedData").getLength() > 0)
			throw new SecurityException("policy: an EncryptedData was left undecrypted");
		return Canonicalizer.getInstance(WSConstants.C14N_EXCL_OMIT_COMMENTS)
			.canonicalizeSubtree(body);
	}
}
