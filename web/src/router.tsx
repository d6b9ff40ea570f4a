// Every page, one route each. The creator console, the review console and the playground load on
// first visit; browse, the listing page, rentals and keys are in the first bundle.
import { createBrowserRouter } from "react-router";
import { Layout } from "./ui/Layout.tsx";
import { BrowsePage } from "./pages/Browse.tsx";
import { ListingPage } from "./pages/Listing.tsx";
import { RentalsPage } from "./pages/Rentals.tsx";
import { KeysPage } from "./pages/Keys.tsx";
import { NotFoundPage } from "./pages/NotFound.tsx";

export function createRouter() {
  return createBrowserRouter([
    {
      path: "/",
      element: <Layout />,
      children: [
        { index: true, element: <BrowsePage /> },
        { path: "listings/:id", element: <ListingPage /> },
        { path: "rentals", element: <RentalsPage /> },
        { path: "keys", element: <KeysPage /> },
        { path: "run", lazy: async () => ({ Component: (await import("./pages/Playground.tsx")).PlaygroundPage }) },
        { path: "creator", lazy: async () => ({ Component: (await import("./pages/creator/CreatorConsole.tsx")).CreatorConsole }) },
        { path: "review", lazy: async () => ({ Component: (await import("./pages/review/ReviewConsole.tsx")).ReviewConsole }) },
        { path: "*", element: <NotFoundPage /> },
      ],
    },
  ]);
}
