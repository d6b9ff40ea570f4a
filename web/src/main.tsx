// The dashboard's entry: load where the API and chain are, then mount wagmi, TanStack Query and the
// router. The creator and review consoles (and the playground) are separate chunks.
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { WagmiProvider } from "wagmi";
import { RouterProvider } from "react-router/dom";
import { loadDashboardConfig } from "./config.ts";
import { createWagmiConfig } from "./chain/wagmi.ts";
import { ConfigContext } from "./lib/context.tsx";
import { SessionProvider } from "./auth/session.tsx";
import { createRouter } from "./router.tsx";
import { retryRead, retryReadDelay } from "./api/rate-limit.ts";
import "./styles.css";

const root = createRoot(document.getElementById("root")!);

try {
  const config = await loadDashboardConfig();
  const wagmi = createWagmiConfig(config);
  const queryClient = new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        refetchOnWindowFocus: false,
        // A refusal (4xx) is an answer, not a glitch: only network errors and 5xx are retried, and a 429
        // is waited out by its Retry-After (api/rate-limit.ts; the banner says so).
        retry: retryRead,
        retryDelay: retryReadDelay,
      },
    },
  });
  const router = createRouter();
  root.render(
    <StrictMode>
      <ConfigContext.Provider value={config}>
        <WagmiProvider config={wagmi}>
          <QueryClientProvider client={queryClient}>
            <SessionProvider>
              <RouterProvider router={router} />
            </SessionProvider>
          </QueryClientProvider>
        </WagmiProvider>
      </ConfigContext.Provider>
    </StrictMode>,
  );
} catch (error) {
  root.render(
    <main className="main">
      <h1>The dashboard could not start</h1>
      <div className="notice notice-error" role="alert">{error instanceof Error ? error.message : String(error)}</div>
    </main>,
  );
}
