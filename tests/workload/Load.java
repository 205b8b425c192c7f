// SPDX-License-Identifier: GPL-2.0-only
/*
 * A Java thread ("hot") spinning in one method, compute(), which the
 * JIT compiles (kept out of its caller with -XX:CompileCommand=
 * dontinline,Load::compute): it prints "ready" once compute has run
 * thousands of times, and the program ends after args[0] seconds.
 */
public class Load {
	static long compute(long n) {
		long s = 1;
		for (long i = 0; i < n; i++)
			s = s * 31 + (i ^ (s >>> 7));
		return s;
	}

	public static void main(String[] args) throws Exception {
		Thread hot = new Thread(() -> {
			long x = 0;
			for (long i = 0;; i++) {
				x += compute(200000);
				if (i == 5000)
					System.out.println("ready " + (x & 1));
			}
		}, "hot");
		hot.setDaemon(true);
		hot.start();
		Thread.sleep(Long.parseLong(args[0]) * 1000);
	}
}
