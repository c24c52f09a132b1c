/** URLs in the log lose credentials, query strings and fragments. */
import { expect, test } from "bun:test";
import { urlForLog } from "../../src/lib/log-url.ts";

test("user, password, query and fragment are left out; scheme, host, port and path stay", () => {
  expect(urlForLog("https://user:pa55@hooks.example.com:8443/in/fieldhub?token=s3cret&x=1#frag")).toBe(
    "https://hooks.example.com:8443/in/fieldhub",
  );
  expect(urlForLog("http://10.0.0.5/hook")).toBe("http://10.0.0.5/hook");
  expect(urlForLog("not a url ?token=s3cret")).toBe("(unreadable URL)");
});
