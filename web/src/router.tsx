// Every page, one route each. Browse is in the first bundle; every other page (and so the contract
// write path, the stream reader and the consoles) loads on first visit.
import { createBrowserRouter } from "react-router";
import { Layout } from "./ui/Layout.tsx";
import { BrowsePage } from "./pages/Browse.tsx";
import { NotFoundPage } from "./pages/NotFound.tsx";

export function createRouter() {
  return createBrowserRouter([
    {
      path: "/",
      element: <Layout />,
      children: [
        { index: true, element: <BrowsePage /> },
        { path: "listings/:id", lazy: async () => ({ Component: (await import("./pages/Listing.tsx")).ListingPage }) },
        { path: "rentals", lazy: async () => ({ Component: (await import("./pages/Rentals.tsx")).RentalsPage }) },
        { path: "keys", lazy: async () => ({ Component: (await import("./pages/Keys.tsx")).KeysPage }) },
        { path: "apps", lazy: async () => ({ Component: (await import("./pages/ConnectedApps.tsx")).ConnectedAppsPage }) },
        { path: "connect", lazy: async () => ({ Component: (await import("./pages/Connect.tsx")).ConnectPage }) },
        { path: "run", lazy: async () => ({ Component: (await import("./pages/Playground.tsx")).PlaygroundPage }) },
        { path: "creator", lazy: async () => ({ Component: (await import("./pages/creator/CreatorConsole.tsx")).CreatorConsole }) },
        { path: "creator/analytics", lazy: async () => ({ Component: (await import("./pages/creator/Analytics.tsx")).CreatorAnalyticsPage }) },
        { path: "review", lazy: async () => ({ Component: (await import("./pages/review/ReviewConsole.tsx")).ReviewConsole }) },
        { path: "*", element: <NotFoundPage /> },
      ],
    },
  ]);
}
