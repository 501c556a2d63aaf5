// A real OAuth 2.0 authorization server on loopback for the OAuth tests: oauth2-mock-server
// (scripts/npm-oauth installs it; it needs Node 22, scripts/node22).
//
//   node oauth_as.mjs <node_modules folder> <port>
//
// Prints one JSON line {"issuer": ..., "kid": ...} once listening.  On top of the library:
// * token endpoint (client_credentials, ...): RFC 8707 `resource` becomes `aud`; `sub`
//   becomes the subject; `client_id` (basic auth, form, or a client assertion's `iss`) is
//   copied into the token;
//   `x_claims` (a JSON object) is merged into the payload (null deletes a claim), so tests
//   can ask for expired or wrong-issuer tokens signed by the real key.
// * introspection (RFC 7662) answers for real: it demands the resource server's client
//   credentials (basic auth rs-client:rs-secret, else 401), then `active` only for tokens
//   this server issued and did not revoke, with their claims.
// * POST /test/rotate {kid}: a new signing key; POST /test/token {kid, claims}: a token
//   signed with that key; POST /test/revoke {token}: revoke for introspection.
// * authorization code flow (the library approves /authorize at once, checks PKCE, and puts
//   the token request's `scope`, else "dummy", into every token): the scope of a code is the
//   one its /authorize asked for, a refresh token keeps the scope of its grant; codes and
//   refresh tokens are single-use and must be ones this server issued (else 400 invalid_grant).
// * POST /test/lifetime {seconds, advertise}: access tokens of the code and refresh grants
//   from now on expire `seconds` after issue; their `expires_in` says so, or is left out when
//   `advertise` is false; {} goes back to the library's hour.
// * GET /test/requests: the /authorize and /token requests so far, without secrets
//   ({endpoint, grant_type, client_id, scope, resource, code_challenge_method, dpop,
//   client_assertion_type}).
// * DPoP (RFC 9449) at the token endpoint: a request with a `DPoP` proof (ES256, checked:
//   typ, public jwk, signature, htm POST, htu the token endpoint, iat within 300 s) gets a
//   token bound to the proof's key (`cnf.jkt`, `token_type: DPoP`); a bad proof: 400
//   invalid_dpop_proof.  POST /test/dpop {advertise}: list ES256 in the metadata's
//   `dpop_signing_alg_values_supported` (off by default).
import { createHash, createPublicKey, verify as verifySignature } from 'node:crypto';
import { createServer } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [modulesDir, portArg] = process.argv.slice(2);
const entry = path.join(modulesDir, 'oauth2-mock-server', 'dist', 'index.mjs');
const { OAuth2Issuer, OAuth2Service, Events } = await import(pathToFileURL(entry).href);
const { decodeJwt } = await import(pathToFileURL(path.join(modulesDir, 'jose', 'dist', 'webapi', 'index.js')).href);

const issuer = new OAuth2Issuer();
const service = new OAuth2Service(issuer);
const server = { issuer, service };
const first = await issuer.keys.generate('RS256', { kid: 'key-1' });
const issued = new Set();
const revoked = new Set();

function clientOf(req) {
  const auth = req.headers.authorization ?? '';
  if (auth.startsWith('Basic ')) {
    const [id, secret] = Buffer.from(auth.slice(6), 'base64').toString().split(':');
    return { id: decodeURIComponent(id ?? ''), secret: decodeURIComponent(secret ?? '') };
  }
  if (req.body?.client_assertion) {  // private_key_jwt: the client is the assertion's iss (not verified here)
    try {
      return { id: decodeJwt(req.body.client_assertion).iss, secret: undefined };
    } catch {
      return { id: undefined, secret: undefined };
    }
  }
  return { id: req.body?.client_id, secret: req.body?.client_secret };
}

function merge(payload, extra) {
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (v === null) delete payload[k];
    else payload[k] = v;
  }
}

const codes = new Map(); // code -> {scope, client_id}
const refreshTokens = new Map(); // refresh token -> {scope, client_id}
const requests = [];
let lifetime = null; // {seconds, advertise}
let advertiseDpop = false;

function dpopProof(req) {
  const proof = req.headers.dpop;
  if (!proof) return null;
  try {
    const [h, p, sig] = String(proof).split('.');
    const header = JSON.parse(Buffer.from(h, 'base64url').toString());
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    if (header.typ !== 'dpop+jwt' || header.alg !== 'ES256' || !header.jwk || header.jwk.d !== undefined) {
      return { error: 'bad header' };
    }
    const key = createPublicKey({ key: header.jwk, format: 'jwk' });
    const ok = verifySignature('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' },
      Buffer.from(sig, 'base64url'));
    const htuOk = typeof payload.htu === 'string' && payload.htu === `${issuer.url}/token`;
    if (!ok || payload.htm !== 'POST' || !htuOk || typeof payload.jti !== 'string'
        || Math.abs(Date.now() / 1000 - payload.iat) > 300) {
      return { error: 'bad proof' };
    }
    const { crv, kty, x, y } = header.jwk;
    return { jkt: createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url') };
  } catch {
    return { error: 'malformed proof' };
  }
}

function grantOf(body) {
  if (body.grant_type === 'authorization_code') return codes.get(body.code);
  if (body.grant_type === 'refresh_token') return refreshTokens.get(body.refresh_token);
  return undefined;
}

server.service.on(Events.BeforeAuthorizeRedirect, ({ url }, req) => {
  const q = req.query ?? {};
  const code = url.searchParams.get('code');
  if (code) codes.set(code, { scope: q.scope ?? '', client_id: q.client_id });
  requests.push({ endpoint: 'authorize', client_id: q.client_id ?? null, scope: q.scope ?? null,
                  resource: q.resource ?? null, code_challenge_method: q.code_challenge_method ?? null });
});

server.service.on(Events.BeforeTokenSigning, (token, req) => {
  const body = req.body ?? {};
  if (body.resource) token.payload.aud = body.resource;
  if (body.sub) token.payload.sub = body.sub;
  const client = clientOf(req);
  if (client.id) token.payload.client_id = client.id;
  const grant = grantOf(body);
  if (grant) token.payload.scope = grant.scope;
  if (grant && lifetime) token.payload.exp = token.payload.iat + lifetime.seconds;
  if (body.x_claims) merge(token.payload, JSON.parse(body.x_claims));
  const proof = dpopProof(req);
  if (proof?.jkt) token.payload.cnf = { jkt: proof.jkt };
});

server.service.on(Events.BeforeWellKnownOpenIdConfiguration, (response) => {
  if (advertiseDpop) response.body.dpop_signing_alg_values_supported = ['ES256'];
});

server.service.on(Events.BeforeResponse, (response, req) => {
  const body = req.body ?? {};
  const client = clientOf(req);
  requests.push({ endpoint: 'token', grant_type: body.grant_type ?? null, client_id: client.id ?? null,
                  scope: body.scope ?? null, resource: body.resource ?? null, dpop: Boolean(req.headers.dpop),
                  client_assertion_type: body.client_assertion_type ?? null });
  const proof = dpopProof(req);
  if (proof?.error) {
    response.statusCode = 400;
    response.body = { error: 'invalid_dpop_proof' };
    return;
  }
  if (proof?.jkt && response.body?.access_token) response.body.token_type = 'DPoP';
  if (body.grant_type === 'authorization_code' || body.grant_type === 'refresh_token') {
    const grant = grantOf(body);
    codes.delete(body.code);
    refreshTokens.delete(body.refresh_token);
    if (!grant || grant.client_id !== client.id) {
      response.statusCode = 400;
      response.body = { error: 'invalid_grant' };
      return;
    }
    response.body.scope = grant.scope;
    if (response.body.refresh_token) refreshTokens.set(response.body.refresh_token, grant);
    if (lifetime) {
      if (lifetime.advertise) response.body.expires_in = lifetime.seconds;
      else delete response.body.expires_in;
    }
  }
  if (response.body?.access_token) issued.add(response.body.access_token);
});

server.service.on(Events.BeforeIntrospect, (response, req) => {
  const client = clientOf(req);
  if (client.id !== 'rs-client' || client.secret !== 'rs-secret') {
    response.statusCode = 401;
    response.body = { error: 'invalid_client' };
    return;
  }
  const token = req.body?.token;
  if (!token || !issued.has(token) || revoked.has(token)) {
    response.body = { active: false };
    return;
  }
  const claims = decodeJwt(token);
  if (typeof claims.exp === 'number' && claims.exp * 1000 < Date.now()) {
    response.body = { active: false };
    return;
  }
  response.body = { active: true, token_type: 'Bearer', ...claims };
});

function sendJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

server.service.addRoute('POST', '/test/rotate', async (req, res) => {
  const key = await server.issuer.keys.generate(req.body?.alg ?? 'RS256', { kid: req.body.kid });
  sendJson(res, 200, { kid: key.kid });
});

server.service.addRoute('POST', '/test/token', async (req, res) => {
  const claims = req.body?.claims ?? {};
  const token = await server.issuer.buildToken({
    kid: req.body?.kid,
    scopesOrTransform: (_header, payload) => merge(payload, claims),
  });
  issued.add(token);
  sendJson(res, 200, { access_token: token });
});

server.service.addRoute('POST', '/test/lifetime', async (req, res) => {
  const seconds = req.body?.seconds;
  lifetime = typeof seconds === 'number' ? { seconds, advertise: req.body?.advertise !== false } : null;
  sendJson(res, 200, {});
});

server.service.addRoute('POST', '/test/dpop', async (req, res) => {
  advertiseDpop = req.body?.advertise === true;
  sendJson(res, 200, {});
});

server.service.addRoute('GET', '/test/requests', async (_req, res) => {
  sendJson(res, 200, requests);
});

server.service.addRoute('POST', '/test/revoke', async (req, res) => {
  revoked.add(req.body?.token);
  sendJson(res, 200, {});
});

// the library's introspection handler reads no body: read the form first, then hand over
const handler = service.requestHandler;
const http = createServer((req, res) => {
  if (req.method !== 'POST' || !req.url?.startsWith('/introspect')) {
    handler(req, res);
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    req.body = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
    handler(req, res);
  });
});
await new Promise((resolve) => http.listen(Number(portArg), '127.0.0.1', resolve));
issuer.url = `http://127.0.0.1:${http.address().port}`;
process.stdout.write(JSON.stringify({ issuer: issuer.url, kid: first.kid }) + '\n');

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    http.close();
    process.exit(0);
  });
}
