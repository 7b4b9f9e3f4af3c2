/**
 * Signs Cloudflare Access JWTs for tests. The key pair is a test fixture: its public half is
 * served by test/fixtures/fake-slack-worker.js as https://team.test/cdn-cgi/access/certs.
 */
import { importJWK, SignJWT } from "jose";

export const ACCESS_TEAM = "https://team.test";
export const ACCESS_AUD = "aud-inbox";
const PRIVATE_KEY = {
  kty: "RSA",
  n: "0bwyC_9MhHwPJ4PMJg5DpYHp3LxIVkFOG12_IhuQ8yyNWTrQ5TyDqlkDX31suSVezTZZOdLNqgDIj5nko9mDf3AGzB4feGTGhmL9eOrkltpVgXTk9ALqBKvnAu_K218sKy6ATW1DrjwfN0EZVaG9JRZ-aB01WSMkjOml8Wa1QDsHYJXygj-XRCsmdGcOuNvOwrvP-jucCzaTVdJay_c-hMeik7Ee_WHchnrQvQnZAgijHOPmHzoOYB3Zc1uLq3hcEM9IzmyH9xcUBhmopFMYW1e2BOwiZECREWNP3WmDqh-VNUdFlWKo_otWMgqy9ryVpQ9ynyNRXdDRd9MHAc9OLw",
  e: "AQAB",
  d: "Fjj6lIrYcLE0adttJhscz8yUGu9YOstwmzWzqsmA8kMmNu4kdCWVTddgpB2GB5gOE3BOw_GyGPE8TvrfXv0NEdOs5LPMYdVLs7GJaeZ5kgJQTQc1uyUT5qrQL194_wV2iJzEu294XF3CcPhU1t3sTKG1gxKVNHykwsl-67UWP1fQsdi9-v4fZLklCIcfbYh1yhY0UeXqQZ96ZHoR9vHdytIQq03ySvxCmypOIpQ3M967FtaXJVYwObaJb8rBJ_5ZAGjy9gefLLH_mbIOPKm-6czgiP65PBAQANAkAZPLH4hG9hxphPXnFzWW63VhZWK8HI1p9LTo0vtLNA9ByxhoAQ",
  p: "7YjugctdQ5sCZ0rpt0E9JkUrJGtLhS_IVvf_dSSPLwfgKV-A73ll1VYDdGk9qjFAQK81gWkAqnX5b4ec4dHczOATeIq1IX4lVVjO9WeojoIewAns23XWyVVqa_0RC1AKZT3ESitCDFDCEzwrF3aZhzDCqh8CAQjhkZyAD9WiBI8",
  q: "4goIxhtN43tsz53VhxMNbgASf5wgmYdPtbtygxwO0RWvA1QXf_9RpZagTuAZGBpL9kdHPe5b_LFEJnF9J2OnUeP6zfFV4Zgp6xNG3lgYanSC5wR2WNHB0IzHKgGuHyj_toPGPW2wGBEBXg4xttO-uYpdDzSrbrazJoQ6kL6tLGE",
  dp: "wHRAomMOBpeSI_SbVkICdH54TQKt5pRnYqd-j__2Dun3oi3h_qVCb85H8ErQjpNm9sG-vUJBKtt5JPcgkgqCNnCa9gCUbzWQtAzHaif5drVQitG_2bQpOWj-V85rv9mzAoJABsPzuJy6EfGfDFyoWdOU9Vc4PXRfpqXBUJMLuVs",
  dq: "Xx7v4EY_ObqH6Lq3z7bR0PeQ0UinY1RQ095E6y2UgqJIWvM5THDqL--6GFcv2DfAvavzK_mxlh4W2sKpczj5gXmZ4q5rgJrjEPy0tv6Fj87mA0eacfgbQqLrcR7x4kUDjw_XDaSqFQaa97SrcQ-cVEIItUxp1BZoP44ngx_qiiE",
  qi: "mxKg1XUmWXr6CMCDCpGXDcMQ4hvNcTlgGYsZ_Vvp_CQGR7EIKxwR1CcOoZh9J5JltR2bSaq2gJ2nCo_asAD03kSLZqu3ODqrVYH2WrxghfCYiMJRhw8oej4u_mqO4X_jqlOEwlsJxsdUAtNM1WxNxMadPjU4ve_j4Kjnpr-wwZc",
  kid: "test-access-key",
  alg: "RS256",
};

export async function accessJwt(
  claims: Record<string, unknown>,
  options: { audience?: string; issuer?: string; expiresIn?: string } = {},
): Promise<string> {
  const key = await importJWK(PRIVATE_KEY, "RS256");
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: PRIVATE_KEY.kid })
    .setIssuer(options.issuer ?? ACCESS_TEAM)
    .setAudience(options.audience ?? ACCESS_AUD)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? "5m")
    .sign(key);
}
