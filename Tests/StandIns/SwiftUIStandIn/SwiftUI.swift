// Stand-ins for SwiftUI's public names, so a Linux test can compile code that imports "SwiftUI"
// and Kura together and see every clash a real SwiftUI file would (Tests/AppleNamesTests).
// Only the names matter; a few types (View, Text, State, Environment, ScenePhase) have enough
// shape to write a view like the seeds'. `scripts/check-name-clashes` reads this file: every
// `public struct|protocol|enum` here is a name no public top-level Kura name may take.

/// A view, as SwiftUI's `View` (main-actor isolated, as in the iOS 18 and macOS 15 SDKs).
@MainActor @preconcurrency public protocol View {
  /// The type of the view's content.
  associatedtype Body: View
  /// The view's content.
  @ViewBuilder var body: Body { get }
}

extension Never: View {
  /// No content: a primitive view.
  public var body: Never { preconditionFailure("a primitive view has no body") }
}

/// A view that shows text, as SwiftUI's `Text`.
public struct Text: View {
  /// The text shown.
  public let content: String
  /// A text view showing `content`.
  public init(_ content: String) { self.content = content }
  /// No content: a primitive view.
  public var body: Never { preconditionFailure("a primitive view has no body") }
}

/// A view with no content, as SwiftUI's `EmptyView`.
public struct EmptyView: View {
  /// An empty view.
  public init() {}
  /// No content: a primitive view.
  public var body: Never { preconditionFailure("a primitive view has no body") }
}

/// Whether a scene is in the foreground, as SwiftUI's `ScenePhase`.
public enum ScenePhase: Sendable, Equatable {
  /// In the foreground and interactive.
  case active
  /// In the foreground, not interactive.
  case inactive
  /// Not visible; the app may be suspended soon after.
  case background
}

/// The values a view reads from its environment, as SwiftUI's `EnvironmentValues`.
public struct EnvironmentValues: Sendable {
  /// The scene's phase.
  public var scenePhase: ScenePhase = .active
  /// The environment of a view outside any scene.
  public init() {}
}

/// Reads an environment value, as SwiftUI's `@Environment`.
@propertyWrapper public struct Environment<Value> {
  /// The value read.
  public let wrappedValue: Value
  /// Reads the value at `keyPath`.
  public init(_ keyPath: KeyPath<EnvironmentValues, Value>) {
    wrappedValue = EnvironmentValues()[keyPath: keyPath]
  }
}

/// A view's own mutable state, as SwiftUI's `@State`.
@propertyWrapper public struct State<Value> {
  /// The value.
  public var wrappedValue: Value
  /// State starting at `wrappedValue`.
  public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
}

/// A reference to a value someone else owns, as SwiftUI's `Binding`.
@propertyWrapper public struct Binding<Value> {
  /// The value.
  public var wrappedValue: Value
  /// A binding holding `wrappedValue`.
  public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
  /// A binding to a constant.
  public static func constant(_ value: Value) -> Binding<Value> { Binding(wrappedValue: value) }
}

/// Builds views from closures, as SwiftUI's `ViewBuilder`.
@resultBuilder public enum ViewBuilder {
  /// The single view a closure returns.
  public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
}

// Result builders SwiftUI declares.
@resultBuilder public enum SceneBuilder { public static func buildBlock() {} }
@resultBuilder public enum CommandsBuilder { public static func buildBlock() {} }
@resultBuilder public enum ToolbarContentBuilder { public static func buildBlock() {} }
@resultBuilder public enum TableColumnBuilder { public static func buildBlock() {} }
@resultBuilder public enum TableRowBuilder { public static func buildBlock() {} }

// Protocols SwiftUI declares.
public protocol ViewModifier {}
public protocol Shape {}
public protocol InsettableShape {}
public protocol ShapeStyle {}
public protocol Gesture {}
public protocol ButtonStyle {}
public protocol PrimitiveButtonStyle {}
public protocol ToggleStyle {}
public protocol ListStyle {}
public protocol PickerStyle {}
public protocol LabelStyle {}
public protocol TextFieldStyle {}
public protocol MenuStyle {}
public protocol GroupBoxStyle {}
public protocol ProgressViewStyle {}
public protocol GaugeStyle {}
public protocol DatePickerStyle {}
public protocol NavigationSplitViewStyle {}
public protocol TabViewStyle {}
public protocol TableStyle {}
public protocol FormStyle {}
public protocol ControlGroupStyle {}
public protocol DisclosureGroupStyle {}
public protocol ToolbarContent {}
public protocol CustomizableToolbarContent {}
public protocol Commands {}
public protocol FileDocument {}
public protocol ReferenceFileDocument {}
public protocol DynamicProperty {}
public protocol EnvironmentKey {}
public protocol PreferenceKey {}
public protocol FocusedValueKey {}
public protocol Layout {}
public protocol AnimatableModifier {}
public protocol Animatable {}
public protocol VectorArithmetic {}
public protocol CustomAnimation {}
public protocol Transition {}
public protocol UIViewRepresentable {}
public protocol UIViewControllerRepresentable {}
public protocol NSViewRepresentable {}
public protocol NSViewControllerRepresentable {}
public protocol ContainerValueKey {}
public protocol TableColumnContent {}
public protocol TableRowContent {}
public protocol ShapeView {}
public protocol AlignmentID {}

// Types SwiftUI declares (shape left out: only the name matters here).
public struct App {}
public struct Scene {}
public struct WindowGroup {}
public struct Window {}
public struct DocumentGroup {}
public struct Settings {}
public struct MenuBarExtra {}
public struct ImmersiveSpace {}
public struct Image {}
public struct Label {}
public struct Button {}
public struct Toggle {}
public struct Picker {}
public struct Slider {}
public struct Stepper {}
public struct TextField {}
public struct SecureField {}
public struct TextEditor {}
public struct DatePicker {}
public struct ColorPicker {}
public struct Link {}
public struct ShareLink {}
public struct Menu {}
public struct List {}
public struct ForEach {}
public struct Section {}
public struct Group {}
public struct GroupBox {}
public struct Form {}
public struct NavigationStack {}
public struct NavigationSplitView {}
public struct NavigationLink {}
public struct NavigationPath {}
public struct NavigationView {}
public struct TabView {}
public struct Tab {}
public struct ScrollView {}
public struct ScrollViewReader {}
public struct ScrollViewProxy {}
public struct LazyVStack {}
public struct LazyHStack {}
public struct LazyVGrid {}
public struct LazyHGrid {}
public struct Grid {}
public struct GridRow {}
public struct GridItem {}
public struct VStack {}
public struct HStack {}
public struct ZStack {}
public struct Spacer {}
public struct Divider {}
public struct AnyView {}
public struct TupleView {}
public struct EditButton {}
public struct RenameButton {}
public struct ProgressView {}
public struct Gauge {}
public struct Table {}
public struct TableColumn {}
public struct TableRow {}
public struct OutlineGroup {}
public struct DisclosureGroup {}
public struct ControlGroup {}
public struct ContentUnavailableView {}
public struct Canvas {}
public struct TimelineView {}
public struct GeometryReader {}
public struct GeometryProxy {}
public struct ViewThatFits {}
public struct Color {}
public struct Font {}
public struct Gradient {}
public struct LinearGradient {}
public struct RadialGradient {}
public struct AngularGradient {}
public struct EllipticalGradient {}
public struct Rectangle {}
public struct RoundedRectangle {}
public struct Circle {}
public struct Capsule {}
public struct Ellipse {}
public struct UnevenRoundedRectangle {}
public struct ContainerRelativeShape {}
public struct AnyShape {}
public struct Path {}
public struct Animation {}
public struct Transaction {}
public struct StateObject {}
public struct ObservedObject {}
public struct EnvironmentObject {}
public struct Bindable {}
public struct FocusState {}
public struct FocusedValue {}
public struct FocusedBinding {}
public struct FocusedValues {}
public struct FocusedObject {}
public struct GestureState {}
public struct Namespace {}
public struct AppStorage {}
public struct SceneStorage {}
public struct ScaledMetric {}
public struct UIApplicationDelegateAdaptor {}
public struct NSApplicationDelegateAdaptor {}
public struct AnyLayout {}
public struct LayoutSubviews {}
public struct LayoutSubview {}
public struct ProposedViewSize {}
public struct ViewDimensions {}
public struct Alignment {}
public struct HorizontalAlignment {}
public struct VerticalAlignment {}
public struct EdgeInsets {}
public struct Angle {}
public struct UnitPoint {}
public struct Anchor {}
public struct Material {}
public struct AnyShapeStyle {}
public struct TapGesture {}
public struct DragGesture {}
public struct LongPressGesture {}
public struct MagnifyGesture {}
public struct RotateGesture {}
public struct SpatialTapGesture {}
public struct AnyGesture {}
public struct ToolbarItem {}
public struct ToolbarItemGroup {}
public struct ToolbarItemPlacement {}
public struct KeyboardShortcut {}
public struct KeyEquivalent {}
public struct EventModifiers {}
public struct OpenURLAction {}
public struct DismissAction {}
public struct OpenWindowAction {}
public struct DismissWindowAction {}
public struct OpenImmersiveSpaceAction {}
public struct RefreshAction {}
public struct NewDocumentAction {}
public struct SubmitLabel {}
public struct CommandMenu {}
public struct CommandGroup {}
public struct CommandGroupPlacement {}
public struct FileDocumentConfiguration {}
public struct ReferenceFileDocumentConfiguration {}
public struct FileDocumentReadConfiguration {}
public struct FileDocumentWriteConfiguration {}
public struct ImageRenderer {}
public struct AsyncImage {}
public struct PresentationDetent {}
public struct SearchFieldPlacement {}
public struct AccessibilityTraits {}
public struct LocalizedStringKey {}
public struct ContentShapeKinds {}
public struct ButtonRole {}
public struct ControlSize {}
public struct Visibility {}
public struct Prominence {}
public struct ScrollPosition {}
public struct ScrollAnchorRole {}
public struct Spring {}
public struct UnitCurve {}
public struct Edge {}
public struct Axis {}
public struct ContentMode {}
public struct ColorScheme {}
public struct ColorSchemeContrast {}
public struct DynamicTypeSize {}
public struct LayoutDirection {}
public struct LegibilityWeight {}
public struct BlendMode {}
public struct RoundedCornerStyle {}
public struct ToolbarRole {}
public struct NavigationBarItem {}
public struct Alert {}
public struct ActionSheet {}
public struct ContextMenu {}
public struct TextSelection {}
public struct TextAlignment {}
public struct Shadow {}
public struct GraphicsContext {}
public struct ForegroundStyle {}
public struct BackgroundStyle {}
public struct SeparatorShapeStyle {}
public struct TintShapeStyle {}
public struct HierarchicalShapeStyle {}
public struct SafeAreaRegions {}
public struct ScrollDismissesKeyboardMode {}
public struct ScrollIndicatorVisibility {}
public struct Subview {}
public struct SubviewsCollection {}
public struct ContainerValues {}
public struct EnvironmentalModifier {}
public struct Entry {}
public struct PhaseAnimator {}
public struct KeyframeAnimator {}
public struct KeyframeTimeline {}
public struct MatchedGeometryProperties {}
public struct AnyTransition {}
public struct ContentTransition {}
public struct SymbolRenderingMode {}
public struct PasteButton {}
public struct EditMode {}
public struct EditActions {}
public struct SwipeActions {}
public struct MenuOrder {}
public struct Inspector {}
public struct WindowResizability {}
public struct WindowStyle {}
